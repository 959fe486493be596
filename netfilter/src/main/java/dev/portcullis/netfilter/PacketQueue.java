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
    if (closed) {
      throw new IOException("packet queue closed");
    }
    int n = NetfilterNative.queueReceive(handle, buffer, waitMillis);
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
