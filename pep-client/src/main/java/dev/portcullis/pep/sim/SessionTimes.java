package dev.portcullis.pep.sim;

import dev.portcullis.support.Quantiles;
import java.util.Arrays;
import org.HdrHistogram.Histogram;

/** Samples of one timed phase in nanoseconds, and their summary. */
public final class SessionTimes {
  private final String name;
  private final long[] samples;
  private final Histogram histogram;

  public SessionTimes(String name, long[] samples) {
    this.name = name;
    this.samples = samples.clone();
    Arrays.sort(this.samples);
    this.histogram = Quantiles.of(this.samples);
  }

  public String name() {
    return name;
  }

  public int count() {
    return samples.length;
  }

  /** The q-quantile ({@link Quantiles}' definition), in nanoseconds; 0 if there are no samples. */
  public long quantile(double q) {
    return Quantiles.at(histogram, q);
  }

  public long min() {
    return samples.length == 0 ? 0 : samples[0];
  }

  public long max() {
    return samples.length == 0 ? 0 : samples[samples.length - 1];
  }

  public long[] sorted() {
    return samples.clone();
  }
}
