package dev.portcullis.support;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * Log lines for events an outsider can cause at will (refused requests, failed fetches): the first
 * of each kind in an interval is logged in full, the rest only counted, and the counts are logged
 * as one summary line when the interval is over (at the next event, or at {@link #flush}). A flood
 * of 20,000 events costs a few lines, not 20,000. Thread-safe.
 */
public final class LogSummary {
  private final Logger log;
  private final String what;
  private final Clock clock;
  private final long intervalMillis;
  private final Map<String, long[]> suppressed = new TreeMap<>();
  private long windowStart;

  /**
   * @param what how the summary names the events ("refused requests", "code-secret fetch failures")
   */
  public LogSummary(Logger log, String what, Duration interval, Clock clock) {
    this.log = log;
    this.what = what;
    this.clock = clock;
    this.intervalMillis = interval.toMillis();
    this.windowStart = clock.millis();
  }

  /**
   * Counts an event of kind {@code kind}; logs {@code format} with {@code args} at WARN if it is
   * the first of its kind in this interval.
   */
  public void warn(String kind, String format, Object... args) {
    boolean first;
    synchronized (this) {
      rollOver();
      long[] n = suppressed.computeIfAbsent(kind, k -> new long[1]);
      first = n[0]++ == 0;
    }
    if (first) {
      log.warn(format, args);
    }
  }

  /** Logs the summary of the interval now, if anything was held back. */
  public void flush() {
    String line;
    synchronized (this) {
      line = summary();
      suppressed.clear();
      windowStart = clock.millis();
    }
    if (line != null) {
      log.warn(line);
    }
  }

  private void rollOver() {
    if (clock.millis() - windowStart >= intervalMillis) {
      String line = summary();
      suppressed.clear();
      windowStart = clock.millis();
      if (line != null) {
        log.warn(line);
      }
    }
  }

  /** The line for what was held back, or null if each kind happened only once. */
  private String summary() {
    StringBuilder b = new StringBuilder();
    long total = 0;
    for (Map.Entry<String, long[]> e : suppressed.entrySet()) {
      long more = e.getValue()[0] - 1;
      if (more > 0) {
        b.append(b.length() == 0 ? "" : ", ").append(e.getKey()).append(": ").append(more);
        total += more;
      }
    }
    if (total == 0) {
      return null;
    }
    return total
        + " more "
        + what
        + " in the last "
        + Duration.ofMillis(clock.millis() - windowStart).toSeconds()
        + " s, not logged one by one ("
        + b
        + ")";
  }
}
