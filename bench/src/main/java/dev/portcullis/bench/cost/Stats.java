package dev.portcullis.bench.cost;

import java.util.Arrays;

/**
 * Summary statistics of one cell's trials. Immutable.
 *
 * @param medianLow the low end of the median's 95 % confidence interval (bootstrap)
 * @param medianHigh its high end
 */
public record Stats(
    int n,
    double min,
    double p10,
    double q1,
    double median,
    double q3,
    double p90,
    double max,
    double mean,
    double medianLow,
    double medianHigh) {

  /**
   * A cell is too noisy to read on its own when its median's interval is wider than this share of
   * the median (±10 %): the report flags it instead of tabulating it like the others.
   */
  public static final double WIDE = 0.2;

  /** The statistics of {@code values} (at least one). */
  public static Stats of(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("no trials");
    }
    double[] s = values.clone();
    Arrays.sort(s);
    double sum = 0;
    for (double v : s) {
      sum += v;
    }
    double[] ci = Bootstrap.interval(Bootstrap.medians(values));
    return new Stats(
        s.length,
        s[0],
        quantile(s, 0.10),
        quantile(s, 0.25),
        quantile(s, 0.50),
        quantile(s, 0.75),
        quantile(s, 0.90),
        s[s.length - 1],
        sum / s.length,
        ci[0],
        ci[1]);
  }

  /** True if the median's interval is wider than {@link #WIDE} of the median. */
  public boolean wide() {
    return median > 0 && (medianHigh - medianLow) > WIDE * median;
  }

  /** The interval's half-width as a share of the median, in percent (for "±4 %"). */
  public double halfWidthPercent() {
    return median > 0 ? 50 * (medianHigh - medianLow) / median : 0;
  }

  /**
   * The {@code q} quantile of sorted values, interpolating linearly between closest ranks (the
   * definition R and NumPy use by default, "type 7").
   */
  public static double quantile(double[] sorted, double q) {
    if (q < 0 || q > 1) {
      throw new IllegalArgumentException("quantile " + q + " (expected 0..1)");
    }
    double h = (sorted.length - 1) * q;
    int lo = (int) Math.floor(h);
    int hi = (int) Math.ceil(h);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  }

  /**
   * The cost of a layer against the base case, in percent, from medians: for times, how much
   * longer; for rates, how much lower (so a positive figure is always a cost).
   */
  public static double overheadPercent(double base, double layer, boolean higherIsBetter) {
    return higherIsBetter ? 100 * (base / layer - 1) : 100 * (layer / base - 1);
  }

  /** Lower whisker: the lowest value within 1.5 interquartile ranges of the first quartile. */
  public double lowerWhisker(double[] values) {
    double fence = q1 - 1.5 * (q3 - q1);
    return Arrays.stream(values).filter(v -> v >= fence).min().orElse(min);
  }

  /** Upper whisker: the highest value within 1.5 interquartile ranges of the third quartile. */
  public double upperWhisker(double[] values) {
    double fence = q3 + 1.5 * (q3 - q1);
    return Arrays.stream(values).filter(v -> v <= fence).max().orElse(max);
  }
}
