package dev.portcullis.active.verify;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The highest sequence number accepted for each authenticated flow that left the session cache
 * before its SET (evicted by size, or dropped by invalidation): when the flow comes back its replay
 * window starts above the mark, so no packet at or below what was seen is ever accepted twice.
 * About 120 bytes per flow, kept until SET plus the clock skew; only flows whose MAC verified get
 * here, so unauthenticated traffic can neither add marks nor make any leave.
 */
final class HighWaterMarks {
  private final ConcurrentHashMap<FlowId, Long> marks = new ConcurrentHashMap<>();
  private final long max;

  /** Keeps at most {@code max} marks (see {@link #full}). */
  HighWaterMarks(long max) {
    this.max = max;
  }

  /** Records what a flow leaving the cache had seen (0: nothing, no mark). */
  void left(FlowId flow, long seen) {
    if (seen != 0) {
      marks.merge(flow, seen, Math::max);
    }
  }

  /** A window for a flow coming back: above its mark, or a fresh one. */
  ReplayWindow windowFor(FlowId flow) {
    Long seen = marks.get(flow);
    return seen == null ? new ReplayWindow() : ReplayWindow.above(seen);
  }

  /** Drops a flow's mark once its cached window carries it ({@code highest} at or above it). */
  void carried(FlowId flow, long highest) {
    Long seen = marks.get(flow);
    if (seen != null && seen <= highest) {
      marks.remove(flow, seen);
    }
  }

  /** True when no more marks may be kept: new flows are then refused, never admitted fresh. */
  boolean full() {
    return marks.size() >= max;
  }

  int size() {
    return marks.size();
  }

  /** Forgets the marks of flows past SET plus {@code skewSeconds} at {@code nowSeconds}. */
  void expire(long nowSeconds, long skewSeconds) {
    marks.keySet().removeIf(f -> f.set() >= 0 && f.set() + skewSeconds < nowSeconds);
  }

  void clear() {
    marks.clear();
  }
}
