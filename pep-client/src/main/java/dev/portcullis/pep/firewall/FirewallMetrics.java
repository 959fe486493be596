package dev.portcullis.pep.firewall;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The host firewall's meters and readiness on a {@link MetricsEndpoint} ({@code <metrics>} in
 * {@code firewall.xml}), read from {@link FirewallCounters} at scrape time. Prometheus names (every
 * series also carries {@code component="firewall"}):
 *
 * <ul>
 *   <li>{@code portcullis_firewall_queued_total}: first packets the kernel queued;
 *   <li>{@code portcullis_firewall_decisions_total{outcome="allow|deny|allow_reused"}}, {@code
 *       portcullis_firewall_decision_seconds} (a histogram: each request's round trip);
 *   <li>{@code portcullis_firewall_refused_total{reason="no_subject|max_flows"}}: refused without
 *       asking;
 *   <li>{@code portcullis_firewall_ended_total{reason="revoked|idle"}};
 *   <li>{@code portcullis_firewall_queue_dropped_total{where="reader|kernel"}}: packets dropped
 *       because the queue overflowed (fail closed: never let through);
 *   <li>{@code portcullis_firewall_requests_in_flight} (at most one per subject and service);
 *   <li>{@code portcullis_firewall_flows} (allowed flows held), {@code
 *       portcullis_firewall_pdp_connected}.
 * </ul>
 *
 * Ready while the queue has its reader, the PEP a PDP, and the audit log can be written.
 */
public final class FirewallMetrics {
  private FirewallMetrics() {}

  /**
   * Opens the endpoint for {@code firewall} on {@code listen}; the caller closes it.
   *
   * @throws IOException naming the address when it cannot bind
   */
  public static MetricsEndpoint open(
      InetSocketAddress listen, HostFirewall firewall, AuditLog audit) throws IOException {
    MetricsEndpoint m = MetricsEndpoint.start(listen, "firewall");
    MeterRegistry r = m.registry();
    FirewallCounters c = firewall.counters();
    m.counter("portcullis.firewall.queued", c.queued, null, null);
    m.counter("portcullis.firewall.decisions", c.allowed, "outcome", "allow");
    m.counter("portcullis.firewall.decisions", c.denied, "outcome", "deny");
    m.counter("portcullis.firewall.decisions", c.allowedOnGrant, "outcome", "allow_reused");
    m.counter("portcullis.firewall.reused.in.kernel", c.admittedInKernel, null, null);
    m.counter("portcullis.firewall.ended", c.admittedAfterGrant, "reason", "grant_over");
    m.counter("portcullis.firewall.events.lost", c.eventsLost, null, null);
    m.counter("portcullis.firewall.refused", c.noSubject, "reason", "no_subject");
    m.counter("portcullis.firewall.refused", c.overLimit, "reason", "max_flows");
    m.counter("portcullis.firewall.ended", c.revoked, "reason", "revoked");
    m.counter("portcullis.firewall.ended", c.idle, "reason", "idle");
    m.counter("portcullis.firewall.queue.dropped", c.readerDropped, "where", "reader");
    m.counter("portcullis.firewall.queue.dropped", c.kernelDropped, "where", "kernel");
    Gauge.builder("portcullis.firewall.flows", c.flows, Number::doubleValue)
        .description("Allowed flows held in the kernel's set")
        .register(r);
    Gauge.builder("portcullis.firewall.requests.in.flight", c.requestsInFlight, Number::doubleValue)
        .description("Requests out at the PDP: at most one per subject and service")
        .register(r);
    c.decisionRoundTrip =
        Timer.builder("portcullis.firewall.decision")
            .description("From a flow's request to its PDP to the decision arriving")
            .serviceLevelObjectives(MetricsEndpoint.LATENCY_BUCKETS.toArray(Duration[]::new))
            .register(r);
    Gauge.builder("portcullis.firewall.pdp.connected", firewall, f -> f.pep().isOpen() ? 1 : 0)
        .description("1 while the firewall's PEP has an open connection to a PDP")
        .register(r);
    m.beforeScrape(firewall::refreshKernelCounters);
    m.readiness("queue", firewall::queueTrouble);
    m.readiness("pdp", () -> firewall.pep().isOpen() ? null : "no PDP connection");
    m.readiness(
        "audit",
        () -> audit.failure() == null ? null : "audit log cannot be written: " + audit.failure());
    return m;
  }
}
