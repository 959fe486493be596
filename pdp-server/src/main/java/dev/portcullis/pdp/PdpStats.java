package dev.portcullis.pdp;

import dev.portcullis.pdp.connection.ConnectionCounters;
import dev.portcullis.support.Quantiles;
import io.micrometer.core.instrument.Timer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
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

  /** Decisions per client type, by outcome: a short array, searched without allocating. */
  private record TypeCounts(int type, LongAdder installed, LongAdder removed, LongAdder failed) {}

  private volatile TypeCounts[] byType = new TypeCounts[0];

  /** The metrics' decision-latency timer while an endpoint is open, else null. */
  private volatile Timer decisionTimer;

  PdpStats() {}

  void connected() {
    connected.incrementAndGet();
    connections.increment();
  }

  void disconnected() {
    connected.decrementAndGet();
  }

  void decision(int clientType, boolean install, long nanos) {
    decisions.increment();
    latency.recordValue(Math.max(0, nanos));
    TypeCounts c = counts(clientType);
    (install ? c.installed : c.removed).increment();
    Timer t = decisionTimer;
    if (t != null) {
      t.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }
  }

  private TypeCounts counts(int clientType) {
    for (TypeCounts c : byType) {
      if (c.type == clientType) {
        return c;
      }
    }
    synchronized (this) {
      for (TypeCounts c : byType) {
        if (c.type == clientType) {
          return c;
        }
      }
      TypeCounts c = new TypeCounts(clientType, new LongAdder(), new LongAdder(), new LongAdder());
      TypeCounts[] more = Arrays.copyOf(byType, byType.length + 1);
      more[more.length - 1] = c;
      byType = more;
      return c;
    }
  }

  /** A request its engine could not decide (failed or too slow): answered "Unable to process". */
  void failedDecision(int clientType) {
    counts(clientType).failed.increment();
  }

  /** Requests of a client type answered "Unable to process" because their engine failed them. */
  public long failedDecisions(int clientType) {
    return counts(clientType).failed.sum();
  }

  /** Decisions so far for a client type that installed ({@code install}) or removed. */
  public long decisions(int clientType, boolean install) {
    TypeCounts c = counts(clientType);
    return (install ? c.installed : c.removed).sum();
  }

  /** Records each decision's latency in {@code t} too, or stops (null). */
  void decisionTimer(Timer t) {
    decisionTimer = t;
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

  /**
   * These counters as a connection sees them: counters it adds to. The recorders stay
   * package-private, so an application holding a {@code PdpStats} only reads.
   */
  ConnectionCounters counters() {
    PdpStats stats = this;
    return new ConnectionCounters() {
      @Override
      public void decision(int clientType, boolean installed, long nanos) {
        stats.decision(clientType, installed, nanos);
      }

      @Override
      public void failedDecision(int clientType) {
        stats.failedDecision(clientType);
      }

      @Override
      public void handshake(boolean resumed) {
        stats.handshake(resumed);
      }

      @Override
      public void protocolError() {
        stats.protocolError();
      }

      @Override
      public void pushed() {
        stats.pushed();
      }

      @Override
      public void report() {
        stats.report();
      }

      @Override
      public void securityRefusal() {
        stats.securityRefusal();
      }
    };
  }
}
