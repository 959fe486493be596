package dev.portcullis.active.verify;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Anti-replay sliding window over 64-bit sequence numbers, as RFC 6479 lays it out: a ring of
 * 64-bit blocks, so a jump forward clears whole blocks instead of shifting bits. A window of {@code
 * n} blocks accepts any number not seen before within {@code (n - 1) * 64} of the highest accepted
 * (RFC 4303 section 3.4.3 semantics). Thread-safe: {@link #accept} and {@link #close} hold the
 * window's lock; {@link #mayAccept} answers a number above the highest without it (the in-order
 * case, nearly every packet), from a read that may be stale — only ever in the direction of "may",
 * which {@link #accept} then settles.
 */
public final class ReplayWindow {
  /** Blocks in the default window: 2,048 bits, 1,984 packets of reordering tolerated. */
  public static final int DEFAULT_BLOCKS = 32;

  private final long[] ring;
  private final int mask;
  private final long size;
  // Written under the lock with release semantics, read without it by mayAccept with acquire: no
  // fence on x86, where a volatile write costs a full one per packet.
  private long highest; // 0: nothing accepted yet (sequence numbers start at 1)
  private boolean closed; // its flow's state moved elsewhere: accepts nothing more

  private static final VarHandle HIGHEST;
  private static final VarHandle CLOSED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HIGHEST = l.findVarHandle(ReplayWindow.class, "highest", long.class);
      CLOSED = l.findVarHandle(ReplayWindow.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public ReplayWindow() {
    this(DEFAULT_BLOCKS);
  }

  /** A window of {@code blocks} 64-bit blocks; {@code blocks} a power of two, at least 2. */
  public ReplayWindow(int blocks) {
    if (blocks < 2 || Integer.bitCount(blocks) != 1) {
      throw new IllegalArgumentException(
          "replay window blocks: " + blocks + " (expected: a power of two, at least 2)");
    }
    this.ring = new long[blocks];
    this.mask = blocks - 1;
    this.size = (long) (blocks - 1) * 64;
  }

  /**
   * A window for a flow that was seen before, up to {@code highWater}: everything at or below it
   * counts as seen, whatever arrives above it is judged as usual. What a flow's state comes back to
   * after it left the session cache, so that leaving it never reopens old sequence numbers.
   */
  public static ReplayWindow above(long highWater) {
    ReplayWindow w = new ReplayWindow();
    if (highWater != 0) {
      Arrays.fill(w.ring, -1L);
      int bit = (int) (highWater & 63);
      // In highWater's own block, the numbers above it are still unseen.
      w.ring[(int) (highWater >>> 6) & w.mask] = bit == 63 ? -1L : (1L << (bit + 1)) - 1;
      w.highest = highWater;
    }
    return w;
  }

  /**
   * Closes the window and returns the highest number accepted: after this it accepts nothing, so a
   * packet racing the hand-over cannot be accepted behind the returned high-water mark.
   */
  public synchronized long close() {
    CLOSED.setRelease(this, true);
    return highest;
  }

  /** True once {@link #close}d: its flow's state moved elsewhere (its session left the cache). */
  public boolean isClosed() {
    return (boolean) CLOSED.getAcquire(this);
  }

  /** Sequence numbers below the highest accepted that are still told apart. */
  public long size() {
    return size;
  }

  /** The highest sequence number accepted so far, 0 before the first. */
  public synchronized long highest() {
    return highest;
  }

  /**
   * True if {@code seq} would be accepted now: not zero, not seen, not too old. Marks nothing: call
   * before the MAC check to save its cost on replays, then {@link #accept} after it.
   */
  public boolean mayAccept(long seq) {
    if (seq == 0 || (boolean) CLOSED.getAcquire(this)) {
      return false;
    }
    if (Long.compareUnsigned(seq, (long) HIGHEST.getAcquire(this)) > 0) {
      return true; // above anything accepted when read: accept() settles a race
    }
    synchronized (this) {
      return !closed && unseenAndRecent(seq);
    }
  }

  private boolean unseenAndRecent(long seq) {
    if (Long.compareUnsigned(seq, highest) > 0) {
      return true;
    }
    if (highest - seq >= size) {
      return false;
    }
    return (ring[(int) (seq >>> 6) & mask] & (1L << seq)) == 0;
  }

  /**
   * Records {@code seq} (call only once its packet's MAC has been verified).
   *
   * @return false if it is a replay or too old — the packet must then be dropped
   */
  public synchronized boolean accept(long seq) {
    if (seq == 0 || closed) {
      return false;
    }
    long index = seq >>> 6;
    if (Long.compareUnsigned(seq, highest) > 0) {
      long top = highest >>> 6;
      long diff = Math.min(index - top, ring.length);
      for (long i = 1; i <= diff; i++) {
        ring[(int) (top + i) & mask] = 0;
      }
      HIGHEST.setRelease(this, seq);
    } else if (highest - seq >= size) {
      return false;
    }
    int slot = (int) index & mask;
    long bit = 1L << seq; // shift counts are taken mod 64: bit (seq & 63)
    if ((ring[slot] & bit) != 0) {
      return false;
    }
    ring[slot] |= bit;
    return true;
  }
}
