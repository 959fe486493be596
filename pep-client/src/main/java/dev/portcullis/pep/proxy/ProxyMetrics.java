package dev.portcullis.pep.proxy;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The proxy's meters and readiness on a {@link MetricsEndpoint} ({@code <metrics>} in {@code
 * pep-proxy.xml}), read from {@link ProxyCounters} at scrape time. Prometheus names (every series
 * also carries {@code component="pep-proxy"}):
 *
 * <ul>
 *   <li>{@code portcullis_proxy_connections_accepted_total}, {@code
 *       portcullis_proxy_connections_open}, {@code portcullis_proxy_buffered_bytes};
 *   <li>{@code portcullis_proxy_decisions_total{outcome="allow|deny|allow_cached|allow_reused"}},
 *       {@code portcullis_proxy_decision_seconds} (a histogram: the round trip of each decision
 *       asked of the PDP);
 *   <li>{@code portcullis_proxy_revoked_total} (held connections cut by a changed decision);
 *   <li>{@code portcullis_proxy_dropped_total{reason}}: {@code no_pdp}, {@code no_subject}, {@code
 *       tls_refused}, {@code upstream_unreachable}, {@code over_limit}, {@code idle};
 *   <li>{@code portcullis_proxy_sessions} (MLS sessions carried), {@code
 *       portcullis_proxy_pdp_connected} (1 while the PEP's connection is open).
 * </ul>
 */
public final class ProxyMetrics {
  private ProxyMetrics() {}

  /**
   * Opens the endpoint for {@code proxy} on {@code listen}; the caller closes it.
   *
   * @throws IOException naming the address when it cannot bind
   */
  public static MetricsEndpoint open(InetSocketAddress listen, PepProxy proxy, AuditLog audit)
      throws IOException {
    MetricsEndpoint m = MetricsEndpoint.start(listen, "pep-proxy");
    MeterRegistry r = m.registry();
    ProxyCounters c = proxy.counters();
    m.counter("portcullis.proxy.connections.accepted", c.accepted, null, null);
    Gauge.builder("portcullis.proxy.connections.open", proxy, PepProxy::open).register(r);
    Gauge.builder("portcullis.proxy.buffered", proxy, PepProxy::buffered)
        .baseUnit("bytes")
        .description("Bytes written to a side and not yet taken by its socket")
        .register(r);
    m.counter("portcullis.proxy.decisions", c.allowed, "outcome", "allow");
    m.counter("portcullis.proxy.decisions", c.denied, "outcome", "deny");
    m.counter("portcullis.proxy.decisions", c.allowedFromCache, "outcome", "allow_cached");
    m.counter("portcullis.proxy.decisions", c.allowedOnGrant, "outcome", "allow_reused");
    m.counter("portcullis.proxy.revoked", c.revoked, null, null);
    m.counter("portcullis.proxy.dropped", c.failedClosed, "reason", "no_pdp");
    m.counter("portcullis.proxy.dropped", c.noSubject, "reason", "no_subject");
    m.counter("portcullis.proxy.dropped", c.tlsRefused, "reason", "tls_refused");
    m.counter("portcullis.proxy.dropped", c.upstreamFailed, "reason", "upstream_unreachable");
    m.counter("portcullis.proxy.dropped", c.overLimit, "reason", "over_limit");
    m.counter("portcullis.proxy.dropped", c.idleClosed, "reason", "idle");
    Gauge.builder("portcullis.proxy.sessions", proxy, PepProxy::sessions).register(r);
    c.decisionRoundTrip =
        Timer.builder("portcullis.proxy.decision")
            .description("From a connection's request to its PDP to the decision arriving")
            .serviceLevelObjectives(MetricsEndpoint.LATENCY_BUCKETS.toArray(Duration[]::new))
            .register(r);
    Gauge.builder("portcullis.proxy.pdp.connected", proxy, p -> p.pep().isOpen() ? 1 : 0)
        .description("1 while the proxy's PEP has an open connection to a PDP")
        .register(r);
    m.readiness(
        "listening",
        () -> proxy.stopped().isDone() ? "stopped" : proxy.draining() ? "draining" : null);
    m.readiness("pdp", () -> proxy.pep().isOpen() ? null : "no PDP connection");
    m.readiness(
        "audit",
        () -> audit.failure() == null ? null : "audit log cannot be written: " + audit.failure());
    return m;
  }
}
