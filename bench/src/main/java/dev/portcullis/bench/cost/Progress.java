package dev.portcullis.bench.cost;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of a long run on the terminal: one line at most every few seconds (so a log stays
 * readable), with the share done, where the run is and the time left. Trials differ by a thousand
 * times in length (a Bouncy Castle handshake against a round trip), so the time left is estimated
 * from whole rounds, which hold every cell's trials in the same mix: the pace of the rounds done so
 * far (the warm-up round first) times the trials still to run. A trial-count estimate inside the
 * first round said "51 s left" for a run that took six minutes.
 */
final class Progress {
  private static final long EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter out;
  private final long total;
  private long done;
  private long lastPrinted = System.nanoTime();
  private long roundStarted = System.nanoTime();
  private long roundTrials;
  private long pacedNanos;
  private long pacedTrials;
  private String round = "";
  private String layer = "";

  Progress(PrintWriter out, long total) {
    this.out = out;
    this.total = Math.max(1, total);
  }

  /** A new round begins (the warm-up is a round too). */
  void round(String name) {
    long now = System.nanoTime();
    if (roundTrials > 0) {
      pacedNanos += now - roundStarted;
      pacedTrials += roundTrials;
    }
    roundStarted = now;
    roundTrials = 0;
    round = name;
  }

  /** Where in the round the run is now (a layer), for the next line. */
  void at(String layer) {
    this.layer = layer;
  }

  /** {@code n} more trials done; prints a line when the last one is old enough. */
  void done(long n) {
    done += n;
    roundTrials += n;
    long now = System.nanoTime();
    if (now - lastPrinted < EVERY_NANOS && done < total) {
      return;
    }
    lastPrinted = now;
    String left;
    if (done >= total) {
      left = "done";
    } else if (pacedTrials == 0) {
      left = "time left known after the warm-up";
    } else {
      long s = (long) ((double) pacedNanos / pacedTrials * (total - done) / 1e9);
      left = "about " + (s >= 60 ? (s / 60) + " min " + (s % 60) + " s" : s + " s") + " left";
    }
    out.println(
        String.format(
            Locale.ROOT,
            "[%3.0f%%] %s: %d of %d trials, %s",
            100.0 * done / total,
            round + ", " + layer,
            done,
            total,
            left));
    out.flush();
  }
}
