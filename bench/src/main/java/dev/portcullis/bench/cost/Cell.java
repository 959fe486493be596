package dev.portcullis.bench.cost;

/** One layer's trials of one metric. */
record Cell(String layer, Metric metric, double[] trials) {
  public Stats stats() {
    return Stats.of(trials);
  }
}
