package dev.portcullis.bench.cost;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The baseline's trials: the same exchanges over plain TCP to a raw responder, directly or (in a
 * subclass) through a TCP proxy.
 */
class RawRunner extends LayerRunner {
  final RawTcp raw;
  RawTcp.Conn conn;
  private double session = -1;

  RawRunner(Layer layer, RawTcp raw, Batches b) {
    super(layer, b);
    this.raw = raw;
  }

  /** Where connections go: the responder itself. */
  InetSocketAddress via() {
    return raw.address();
  }

  @Override
  List<Metric> metrics() {
    return List.of(
        Metric.CC,
        Metric.RR,
        Metric.CRR,
        Metric.STREAM,
        Metric.SESSION_CONNECT,
        Metric.SESSION_OPERATIONS);
  }

  @Override
  void open() throws Exception {
    conn = raw.new Conn(via());
  }

  @Override
  double trial(Metric m) throws Exception {
    long t = System.nanoTime();
    switch (m) {
      case CC:
        try (RawTcp.Conn c = raw.new Conn(via())) {
          c.exchange(); // stands for OPN/CAT
          return (System.nanoTime() - t) / 1e3;
        }
      case RR:
        for (int i = 0; i < rrBatch; i++) {
          conn.exchange();
        }
        return (System.nanoTime() - t) / 1e3 / rrBatch;
      case CRR:
        try (RawTcp.Conn c = raw.new Conn(via())) {
          c.exchange();
          c.exchange();
          return (System.nanoTime() - t) / 1e3;
        }
      case STREAM:
        conn.stream(streamBatch, window);
        return streamBatch / ((System.nanoTime() - t) / 1e9);
      case SESSION_CONNECT:
        {
          RawTcp.Conn c = raw.new Conn(via());
          c.exchange();
          double connect = (System.nanoTime() - t) / 1e3;
          long t1 = System.nanoTime();
          c.exchange();
          c.close();
          session = (System.nanoTime() - t1) / 1e3;
          return connect;
        }
      case SESSION_OPERATIONS:
        {
          if (session < 0) {
            trial(Metric.SESSION_CONNECT);
          }
          double s = session;
          session = -1;
          return s;
        }
      default:
        throw new IllegalArgumentException(m.toString());
    }
  }

  @Override
  public void close() {
    closeConnection();
  }

  final void closeConnection() {
    try {
      if (conn != null) {
        conn.close();
      }
    } catch (IOException e) {
      // closing: nothing to do
    }
  }
}
