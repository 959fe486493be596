package dev.portcullis.pdp;

import dev.portcullis.support.Quantiles;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Counters an operator can read while the PDP runs: connected PEPs, decisions, reports, errors, and
 * decision latency (from a REQ's arrival to its DEC being written) in an HdrHistogram of
 * nanoseconds (the one quantile definition, {@link Quantiles}), recorded for every decision.
 */
public final class PdpStats {
  private final AtomicInteger connected = new AtomicInteger();
  private final LongAdder connections = new LongAdder();
  private final LongAdder decisions = new LongAdder();
  private final LongAdder pushes = new LongAdder();
  private final LongAdder reports = new LongAdder();
  private final LongAdder protocolErrors = new LongAdder();
  private final LongAdder tlsFull = new LongAdder();
  private final LongAdder tlsResumed = new LongAdder();
  private final LongAdder tlsUnknown = new LongAdder();
  private final LongAdder securityRefusals = new LongAdder();
  private final ConcurrentHistogram latency = new ConcurrentHistogram(Quantiles.DIGITS);
  private final long started = System.nanoTime();

  PdpStats() {}

  void connected() {
    connected.incrementAndGet();
    connections.increment();
  }

  void disconnected() {
    connected.decrementAndGet();
  }

  void decision(long nanos) {
    decisions.increment();
    latency.recordValue(Math.max(0, nanos));
  }

  void pushed() {
    pushes.increment();
  }

  void report() {
    reports.increment();
  }

  void protocolError() {
    protocolErrors.increment();
  }

  void handshake(Boolean resumed) {
    (resumed == null ? tlsUnknown : resumed ? tlsResumed : tlsFull).increment();
  }

  void securityRefusal() {
    securityRefusals.increment();
  }

  /** TLS handshakes that verified a certificate (full handshakes). */
  public long fullHandshakes() {
    return tlsFull.sum();
  }

  /** TLS handshakes that resumed a session. */
  public long resumedHandshakes() {
    return tlsResumed.sum();
  }

  /**
   * TLS handshakes neither known full nor resumed: no client certificate asked for, on an engine
   * that does not report resumption (only the OpenSSL engine does).
   */
  public long unknownHandshakes() {
    return tlsUnknown.sum();
  }

  /**
   * PEPs refused for security: below their protection level, failed authentication, identity
   * mismatch, bytes before the TLS handshake.
   */
  public long securityRefusals() {
    return securityRefusals.sum();
  }

  public int connectedPeps() {
    return connected.get();
  }

  public long totalConnections() {
    return connections.sum();
  }

  public long decisions() {
    return decisions.sum();
  }

  public long unsolicitedDecisions() {
    return pushes.sum();
  }

  public long reports() {
    return reports.sum();
  }

  public long protocolErrors() {
    return protocolErrors.sum();
  }

  /** The decision latency quantile {@code q} (0 to 1) in nanoseconds; 0 before any decision. */
  public long latencyQuantileNanos(double q) {
    return Quantiles.at(latency, q);
  }

  /** One line for the log. */
  public String summary() {
    double secs = Math.max(1e-9, (System.nanoTime() - started) / 1e9);
    return String.format(
        "%d PEPs connected (%d connections so far), %d decisions (%.0f/s average), %d pushed,"
            + " %d reports, %d protocol errors, TLS handshakes %d full / %d resumed / %d unknown,"
            + " %d security refusals, decision latency p50 %d us, p99 %d us",
        connectedPeps(),
        totalConnections(),
        decisions(),
        decisions() / secs,
        unsolicitedDecisions(),
        reports(),
        protocolErrors(),
        fullHandshakes(),
        resumedHandshakes(),
        unknownHandshakes(),
        securityRefusals(),
        latencyQuantileNanos(0.5) / 1000,
        latencyQuantileNanos(0.99) / 1000);
  }
}
