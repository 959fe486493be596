package dev.portcullis.bench.cost;

/**
 * A layer's cost against its base, in percent (for times how much longer, for rates how much lower:
 * a positive figure is always a cost), with a 95 % confidence interval from resampling both cells'
 * trials independently (bootstrap of the ratio of medians). The difference is significant when the
 * interval leaves out zero; otherwise the report says the two cannot be told apart.
 */
record Comparison(double percent, double low, double high) {

  static Comparison of(Cell base, Cell layer) {
    boolean higher = layer.metric().higherIsBetter;
    double[] b = Bootstrap.medians(base.trials());
    double[] l = Bootstrap.medians(layer.trials());
    double[] costs = new double[b.length];
    for (int i = 0; i < b.length; i++) {
      costs[i] = Stats.overheadPercent(b[i], l[i], higher);
    }
    double[] ci = Bootstrap.interval(costs);
    return new Comparison(
        Stats.overheadPercent(base.stats().median(), layer.stats().median(), higher), ci[0], ci[1]);
  }

  /** The interval leaves out zero: the layer really costs (or saves) something. */
  boolean significant() {
    return low > 0 || high < 0;
  }
}
