package dev.portcullis.netfilter;

import java.io.IOException;
import java.time.Duration;

/**
 * One netfilter queue (the xtables {@code NFQUEUE} target, or nft's {@code queue} where the kernel
 * has it): the kernel hands each packet a rule sends there to this reader and holds it until its
 * verdict. Opened in the network namespace of the thread that opens it. One thread reads and gives
 * the verdicts; a packet left without one stays held, so a reader that stops must {@link #close}
 * (the kernel then drops what the queue holds, and later packets find no reader and are dropped:
 * fail closed, unless the rule says {@code --queue-bypass}).
 */
public final class PacketQueue implements AutoCloseable {
  private final long handle;
  private final int waitMillis;
  private final byte[] buffer = new byte[8 + 256];
  private final byte[] events = new byte[Conntrack.TUPLE * 256];
  // wakeup (any thread) against close: held for an eventfd write or the queue's release, no more
  private final Object lifetime = new Object();
  private long overflows;
  private volatile boolean closed;

  private PacketQueue(long handle, int waitMillis) {
    this.handle = handle;
    this.waitMillis = waitMillis;
  }

  /** Why queues cannot be opened here (the native library), or null. */
  public static String unavailable() {
    return NetfilterNative.unavailable();
  }

  /**
   * Binds queue {@code number} (0 to 65535); {@link #receive} waits at most {@code wait}. The
   * kernel holds at most {@code maxLength} packets for it, and drops those beyond.
   *
   * @throws IOException with the system's reason (not root; another reader has the number)
   */
  public static PacketQueue open(int number, int maxLength, Duration wait) throws IOException {
    if (number < 0 || number > 0xffff) {
      throw new IllegalArgumentException("queue number " + number + ": expected 0 to 65535");
    }
    NetfilterNative.ensure();
    int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, wait.toMillis()));
    return new PacketQueue(NetfilterNative.queueOpen(number, maxLength, ms), ms);
  }

  /** The next queued packet, or null when none came within the wait given at {@link #open}. */
  public QueuedPacket receive() throws IOException {
    return receive(waitMillis);
  }

  /**
   * The next queued packet, or null when none came within {@code waitMillis} (0: none is waiting
   * now) or {@link #wakeup} ended the wait.
   */
  public QueuedPacket receive(int waitMillis) throws IOException {
    return receive(waitMillis, false);
  }

  /**
   * {@link #receive(int)}, which with {@code admittedToo} also returns null when flows the kernel
   * admitted are waiting for {@link #admitted} (see {@link #watchAdmitted}).
   */
  public QueuedPacket receive(int waitMillis, boolean admittedToo) throws IOException {
    if (closed) {
      throw new IOException("packet queue closed");
    }
    int n = NetfilterNative.queueReceive(handle, buffer, waitMillis, admittedToo);
    overflows += NetfilterNative.queueOverflow(handle);
    if (n < 0) {
      overflows++; // the kernel dropped packets: this reader was behind
      return null;
    }
    return n == 0 ? null : QueuedPacket.parse(buffer, n);
  }

  /**
   * Ends the reader's wait in {@link #receive} at once (it returns null): another thread has work
   * for it. The one method callable from any thread while the queue is open.
   */
  public void wakeup() {
    synchronized (lifetime) { // never on a queue closed meanwhile: its eventfd freed
      if (!closed) {
        NetfilterNative.queueWakeup(handle);
      }
    }
  }

  /**
   * Watches, from now, for the flows the kernel admits itself, with no packet queued: conntrack's
   * new-flow events of entries whose mark has every bit of {@code mark} (a rule sets it as it
   * admits). {@link #admitted} hands them over; {@link #receive(int, boolean)} can wait for them
   * too. Called once, on the reading thread, in its namespace.
   *
   * @throws IOException with the system's reason (not root)
   */
  public void watchAdmitted(int mark) throws IOException {
    watchAdmitted(mark, 4 << 20);
  }

  /**
   * {@link #watchAdmitted(int)} with the event socket's buffer {@code bufferBytes} (4 MiB there;
   * the kernel drops the events beyond what it holds, and {@link #admitted} says how many).
   */
  public void watchAdmitted(int mark, int bufferBytes) throws IOException {
    if (mark == 0) {
      throw new IllegalArgumentException("mark 0: expected at least one bit");
    }
    NetfilterNative.queueWatch(handle, mark, bufferBytes);
  }

  /**
   * The flows the kernel admitted itself since the last call (see {@link #watchAdmitted}), oldest
   * first, read now without waiting (at most 256 a call: call again until none); {@code lost} says
   * that some were not seen (the kernel's event socket was full): the caller looks at conntrack
   * itself ({@link Conntrack#marked}).
   */
  public Admitted admitted() {
    if (closed) {
      return Admitted.NONE;
    }
    int n = NetfilterNative.queueEvents(handle, events);
    int lost = NetfilterNative.queueEventsLost(handle);
    return n == 0 && lost == 0 ? Admitted.NONE : new Admitted(Conntrack.flows(events, n), lost);
  }

  /** Flows the kernel admitted itself, and how many events about others were lost. */
  public record Admitted(java.util.List<Flow> flows, int lost) {
    static final Admitted NONE = new Admitted(java.util.List.of(), 0);

    public Admitted {
      flows = java.util.List.copyOf(flows);
    }
  }

  /** Lets the packet {@code id} go on its way. */
  public void accept(int id) throws IOException {
    NetfilterNative.queueVerdict(handle, id, true, -1);
  }

  /**
   * Lets the packet {@code id} go on its way with its mark set to {@code mark} (32 bits), for rules
   * after the queue to act on: the host firewall's adds the flow to its set that way, in the
   * kernel, with the packet.
   */
  public void accept(int id, int mark) throws IOException {
    NetfilterNative.queueVerdict(handle, id, true, mark & 0xffffffffL);
  }

  /** Drops the packet {@code id}. */
  public void drop(int id) throws IOException {
    NetfilterNative.queueVerdict(handle, id, false, -1);
  }

  /** Times packets were dropped because this reader was behind (kernel or hand-over). */
  public long overflows() {
    return overflows;
  }

  @Override
  public void close() {
    synchronized (lifetime) {
      if (!closed) {
        closed = true;
        NetfilterNative.queueClose(handle);
      }
    }
  }
}
