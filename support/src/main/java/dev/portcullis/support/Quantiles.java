package dev.portcullis.support;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * The one quantile definition for latency samples in Portcullis: HdrHistogram's value at a
 * percentile (the smallest recorded value at or below which that share of samples falls, nearest
 * rank), to 3 significant digits, reported as the low end of its histogram bucket. The PDP's
 * decision latencies, the simulator's phases and the benchmarks' round trips all report through it,
 * so their p50 and p99 mean the same thing.
 */
public final class Quantiles {
  /** Significant decimal digits kept: values are exact below 2048 ns, within 0.1% above. */
  public static final int DIGITS = 3;

  private Quantiles() {}

  /** A histogram of {@code samples} (nanoseconds or any other non-negative unit). */
  public static Histogram of(long[] samples) {
    Histogram h = new Histogram(DIGITS);
    for (long v : samples) {
      h.recordValue(Math.max(0, v));
    }
    return h;
  }

  /** The {@code q} quantile (0 to 1) of {@code h}; 0 if it holds no samples. */
  public static long at(AbstractHistogram h, double q) {
    if (q < 0 || q > 1) {
      throw new IllegalArgumentException("quantile " + q + " (expected: 0 to 1)");
    }
    // The low end of the bucket holding the value: a value recorded exactly (below 2048, or a
    // round one above) comes back as recorded, not as its bucket's high end.
    return h.getTotalCount() == 0 ? 0 : h.lowestEquivalentValue(h.getValueAtPercentile(q * 100));
  }

  /** The {@code q} quantile (0 to 1) of {@code samples}; 0 if there are none. */
  public static long at(long[] samples, double q) {
    return at(of(samples), q);
  }
}
