package dev.portcullis.bench.cost;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of a long run on the terminal: one line at most every few seconds (so a log stays
 * readable), with the share done, where the run is and an estimate of the time left from the pace
 * so far.
 */
final class Progress {
  private static final long EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter out;
  private final long total;
  private final long started = System.nanoTime();
  private long done;
  private long lastPrinted = started;
  private String where = "";

  Progress(PrintWriter out, long total) {
    this.out = out;
    this.total = Math.max(1, total);
  }

  /** Where the run is now (a round, a layer), for the next line. */
  void at(String round, String layer) {
    where = round + ", " + layer;
  }

  /** {@code n} more units done; prints a line when the last one is old enough. */
  void done(long n) {
    done += n;
    long now = System.nanoTime();
    if (now - lastPrinted < EVERY_NANOS && done < total) {
      return;
    }
    lastPrinted = now;
    double share = (double) done / total;
    long left = share <= 0 ? 0 : (long) ((now - started) / 1e9 * (1 - share) / share);
    out.println(
        String.format(
            Locale.ROOT,
            "[%3.0f%%] %s: %d of %d trials, about %s left",
            100 * share,
            where,
            done,
            total,
            left >= 60 ? (left / 60) + " min " + (left % 60) + " s" : left + " s"));
    out.flush();
  }
}
