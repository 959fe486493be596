package dev.portcullis.bench.cost;

/** One layer's trials of one metric, and their statistics (computed once: a bootstrap each). */
record Cell(String layer, Metric metric, double[] trials, Stats stats) {
  Cell(String layer, Metric metric, double[] trials) {
    this(layer, metric, trials, Stats.of(trials));
  }
}
