package dev.portcullis.support;

import java.time.Duration;

/**
 * Exponential back-off between attempts: the first wait is {@code initial}, each next one twice the
 * last, never more than {@code max}; {@link #reset} after a success. The one retry timing of
 * Portcullis (PEP reconnects, the Authorization Server's writes to the Code Server). Not
 * thread-safe: one owner.
 */
public final class Backoff {
  private final long initialMillis;
  private final long maxMillis;
  private long nextMillis;

  public Backoff(Duration initial, Duration max) {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "back-off: initial " + initial + ", max " + max + " (expected: 0 < initial <= max)");
    }
    this.initialMillis = initial.toMillis();
    this.maxMillis = max.toMillis();
    this.nextMillis = initialMillis;
  }

  /** The wait before the next attempt, in milliseconds; the one after it doubles. */
  public long nextDelayMillis() {
    long d = nextMillis;
    nextMillis = Math.min(maxMillis, nextMillis * 2);
    return d;
  }

  /** After a success: the next wait is the initial one again. */
  public void reset() {
    nextMillis = initialMillis;
  }
}
