package dev.portcullis.bench.cost;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The percentile bootstrap of a median: resample the trials with replacement many times, take each
 * resample's median, and read the 2.5th and 97.5th percentiles of those medians as a 95 %
 * confidence interval. It assumes nothing about the trials' distribution, which on a noisy machine
 * is skewed and often has two modes. The random source is seeded from the trials themselves, so the
 * same trials always give the same interval.
 */
final class Bootstrap {
  /**
   * Resamples per interval: enough that the interval's ends move by well under 1 % between seeds.
   */
  static final int RESAMPLES = 2000;

  private Bootstrap() {}

  /** The median of each of {@link #RESAMPLES} resamples of {@code values}, in resample order. */
  static double[] medians(double[] values) {
    SplittableRandom random = new SplittableRandom(Arrays.hashCode(values));
    double[] out = new double[RESAMPLES];
    double[] r = new double[values.length];
    for (int b = 0; b < RESAMPLES; b++) {
      for (int i = 0; i < r.length; i++) {
        r[i] = values[random.nextInt(values.length)];
      }
      Arrays.sort(r);
      out[b] = Stats.quantile(r, 0.5);
    }
    return out;
  }

  /** The central 95 % of {@code samples}: {low, high}. */
  static double[] interval(double[] samples) {
    double[] s = samples.clone();
    Arrays.sort(s);
    return new double[] {Stats.quantile(s, 0.025), Stats.quantile(s, 0.975)};
  }
}
