package dev.portcullis.pdp;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters an operator can read while the PDP runs: connected PEPs, decisions, reports, errors, and
 * decision latency (from a REQ's arrival to its DEC being written) in a log2 histogram of
 * nanoseconds, cheap enough for every decision.
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
  private final LongAdder[] latency = new LongAdder[64];
  private final long started = System.nanoTime();

  PdpStats() {
    for (int i = 0; i < latency.length; i++) {
      latency[i] = new LongAdder();
    }
  }

  void connected() {
    connected.incrementAndGet();
    connections.increment();
  }

  void disconnected() {
    connected.decrementAndGet();
  }

  void decision(long nanos) {
    decisions.increment();
    latency[63 - Long.numberOfLeadingZeros(Math.max(1, nanos))].increment();
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

  /**
   * The decision latency below which a fraction {@code q} of decisions fall, as the upper bound of
   * its power-of-two bucket (so within a factor of 2), in nanoseconds.
   */
  public long latencyQuantileNanos(double q) {
    long total = 0;
    long[] counts = new long[latency.length];
    for (int i = 0; i < latency.length; i++) {
      counts[i] = latency[i].sum();
      total += counts[i];
    }
    if (total == 0) {
      return 0;
    }
    long target = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= target) {
        return 1L << (i + 1);
      }
    }
    return Long.MAX_VALUE;
  }

  /** One line for the log. */
  public String summary() {
    double secs = Math.max(1e-9, (System.nanoTime() - started) / 1e9);
    return String.format(
        "%d PEPs connected (%d connections so far), %d decisions (%.0f/s average), %d pushed,"
            + " %d reports, %d protocol errors, TLS handshakes %d full / %d resumed / %d unknown,"
            + " %d security refusals, decision latency p50 < %d us, p99 < %d us",
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
