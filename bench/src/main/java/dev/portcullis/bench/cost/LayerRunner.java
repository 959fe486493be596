package dev.portcullis.bench.cost;

import java.util.List;

/** Runs one layer's trials. */
abstract class LayerRunner implements AutoCloseable {
  /** How many operations one trial of RR and STREAM takes, and STREAM's requests in flight. */
  record Batches(int rr, int stream, int window) {}

  final Layer layer;
  final int rrBatch;
  final int streamBatch;
  final int window;

  LayerRunner(Layer layer, Batches b) {
    this.layer = layer;
    this.rrBatch = b.rr();
    this.streamBatch = b.stream();
    this.window = b.window();
  }

  abstract List<Metric> metrics();

  abstract void open() throws Exception;

  /**
   * How many of this layer's resuming handshakes really resumed, as {resumed, all}, or null for a
   * layer without session resumption: a "resumed" cell whose handshakes were all full must say so.
   */
  long[] resumptions() {
    return null;
  }

  /** One trial of a metric: microseconds, or decisions per second for STREAM. */
  abstract double trial(Metric m) throws Exception;

  @Override
  public abstract void close();
}
