package dev.portcullis.support;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Progress of long work for a person at a terminal or reading a log: one line at most every {@value
 * #EVERY_SECONDS} seconds, with the share done and the time left at the pace so far ({@code [ 42%]
 * simulate: 420 of 1000 sessions, about 12 s left}); work that ends sooner prints nothing. A line,
 * not a redrawn bar, so that a log or a pipe stays readable. Thread-safe.
 */
public final class ProgressLine {
  static final long EVERY_SECONDS = 5;

  private final PrintWriter out;
  private final String what;
  private final String unit;
  private final long total;
  private final LongSupplier nanoTime;
  private final long started;
  private long lastPrinted;
  private long done;

  /**
   * @param what the work, as the line names it ({@code simulate})
   * @param unit what is counted ({@code sessions})
   * @param total how many there are
   */
  public ProgressLine(PrintWriter out, String what, String unit, long total) {
    this(out, what, unit, total, System::nanoTime);
  }

  ProgressLine(PrintWriter out, String what, String unit, long total, LongSupplier nanoTime) {
    this.out = out;
    this.what = what;
    this.unit = unit;
    this.total = Math.max(1, total);
    this.nanoTime = nanoTime;
    this.started = nanoTime.getAsLong();
    this.lastPrinted = started;
  }

  /** {@code n} more done; prints a line when the last one is old enough. */
  public synchronized void done(long n) {
    done += n;
    long now = nanoTime.getAsLong();
    if (done >= total || now - lastPrinted < EVERY_SECONDS * 1_000_000_000L) {
      return;
    }
    lastPrinted = now;
    long left = (long) ((double) (now - started) / done * (total - done) / 1e9);
    out.println(
        String.format(
            Locale.ROOT,
            "[%3.0f%%] %s: %d of %d %s, about %s left",
            100.0 * done / total,
            what,
            done,
            total,
            unit,
            left >= 60 ? (left / 60) + " min " + (left % 60) + " s" : left + " s"));
    out.flush();
  }
}
