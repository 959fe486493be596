package dev.portcullis.pep.sim;

import java.util.Arrays;

/** Samples of one timed phase in nanoseconds, and their summary. */
public final class SessionTimes {
  private final String name;
  private final long[] samples;

  public SessionTimes(String name, long[] samples) {
    this.name = name;
    this.samples = samples.clone();
    Arrays.sort(this.samples);
  }

  public String name() {
    return name;
  }

  public int count() {
    return samples.length;
  }

  /** The q-quantile (nearest rank), in nanoseconds; 0 if there are no samples. */
  public long quantile(double q) {
    if (samples.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * samples.length) - 1;
    return samples[Math.max(0, Math.min(samples.length - 1, i))];
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
