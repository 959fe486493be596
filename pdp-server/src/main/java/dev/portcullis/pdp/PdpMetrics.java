package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.ClientTypes;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.metrics.CryptoMeters;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.state.StateStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The PDP's meters on its {@link MetricsEndpoint}, read from {@link PdpStats} at scrape time (the
 * decision path keeps its own counters; only the latency timer is recorded on it, and only while an
 * endpoint is open). Prometheus names, as scraped:
 *
 * <ul>
 *   <li>{@code portcullis_pdp_peps_connected}, {@code portcullis_pdp_connections_total};
 *   <li>{@code portcullis_pdp_decisions_total{client_type, engine, outcome="install|remove|error"}}
 *       (error: the engine failed or timed out, answered "Unable to process");
 *   <li>{@code portcullis_pdp_decision_seconds} (a histogram: REQ arrival to DEC ready);
 *   <li>{@code portcullis_pdp_unsolicited_decisions_total}, {@code portcullis_pdp_reports_total},
 *       {@code portcullis_pdp_protocol_errors_total}, {@code
 *       portcullis_pdp_security_refusals_total} (Integrity and TLS failures, enrolment refusals);
 *   <li>{@code portcullis_pdp_tls_handshakes_total{kind="full|resumed|unknown"}};
 *   <li>{@code portcullis_crypto_provider_info{algorithm, provider}} (1 for the provider serving
 *       each algorithm now);
 *   <li>{@code portcullis_pdp_store_connected} (1 while a configured store is reachable).
 * </ul>
 */
final class PdpMetrics {
  private PdpMetrics() {}

  /**
   * What the meters and readiness read, and nothing else of the server: its configuration, counters
   * and audit log, why it does not serve now (null while it does), its crypto registry and its
   * shared store (null without one).
   */
  record Sources(
      PdpConfig config,
      PdpStats stats,
      AuditLog audit,
      MetricsEndpoint.Check notServing,
      Supplier<CryptoRegistry> crypto,
      StateStore store) {}

  /**
   * Opens the PDP's endpoint ({@code <metrics listen=...>}) with its meters and readiness: ready
   * while it serves (listening, not draining or stopping), its audit log (if any) writable and its
   * store (if any) connected. Policies are loaded before a PDP starts at all, and a reload that
   * fails keeps the last good one, so they never make it unready.
   */
  static MetricsEndpoint open(Sources pdp) throws IOException {
    PdpConfig.Control c = pdp.config().control();
    MetricsEndpoint m =
        MetricsEndpoint.start(
            pdp.config().metrics(),
            "pdp",
            c == null
                ? null
                : MetricsEndpoint.https(c.certificate(), c.key(), c.clientCa(), "<metrics><tls>"));
    StateStore store = pdp.store();
    bind(pdp, m, store);
    m.readiness("listening", pdp.notServing());
    AuditLog audit = pdp.audit();
    m.readiness(
        "audit",
        () ->
            audit.failure() == null
                ? null
                : "audit log cannot be written: " + audit.failure().getMessage());
    if (store != null) {
      m.readiness(
          "store",
          () ->
              store.connection().up()
                  ? null
                  : "store " + store.connection().name().toLowerCase(Locale.ROOT));
    }
    return m;
  }

  private static void bind(Sources pdp, MetricsEndpoint endpoint, StateStore store) {
    MeterRegistry r = endpoint.registry();
    PdpStats s = pdp.stats();
    Gauge.builder("portcullis.pdp.peps.connected", s, PdpStats::connectedPeps)
        .description("PEPs connected now")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.connections", s, PdpStats::totalConnections)
        .description("Connections accepted")
        .register(r);
    for (PdpConfig.ClientTypeConfig c : pdp.config().clientTypes().values()) {
      Map<String, ToDoubleFunction<PdpStats>> outcomes =
          Map.of(
              "install", x -> x.decisions(c.code(), true),
              "remove", x -> x.decisions(c.code(), false),
              "error", x -> x.failedDecisions(c.code()));
      outcomes.forEach(
          (outcome, count) ->
              FunctionCounter.builder("portcullis.pdp.decisions", s, count)
                  .description("Decisions sent in answer to requests (error: Unable to process)")
                  .tags(
                      "client_type",
                      ClientTypes.hex(c.code()),
                      "engine",
                      c.engine(),
                      "outcome",
                      outcome)
                  .register(r));
    }
    s.decisionTimer(
        Timer.builder("portcullis.pdp.decision")
            .description("From a request's arrival to its decision being ready to send")
            .serviceLevelObjectives(MetricsEndpoint.LATENCY_BUCKETS.toArray(Duration[]::new))
            .register(r));
    FunctionCounter.builder(
            "portcullis.pdp.unsolicited.decisions", s, PdpStats::unsolicitedDecisions)
        .description("Decisions pushed without a request (a policy or session change)")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.reports", s, PdpStats::reports).register(r);
    FunctionCounter.builder("portcullis.pdp.protocol.errors", s, PdpStats::protocolErrors)
        .description("Connections closed for a protocol error")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.security.refusals", s, PdpStats::securityRefusals)
        .description("Integrity, TLS and enrolment refusals")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.tls.handshakes", s, PdpStats::fullHandshakes)
        .tag("kind", "full")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.tls.handshakes", s, PdpStats::resumedHandshakes)
        .tag("kind", "resumed")
        .register(r);
    FunctionCounter.builder("portcullis.pdp.tls.handshakes", s, PdpStats::unknownHandshakes)
        .tag("kind", "unknown")
        .register(r);
    CryptoMeters.bind(endpoint, pdp.crypto());
    if (store != null) {
      Gauge.builder("portcullis.pdp.store.connected", store, st -> st.connection().up() ? 1 : 0)
          .description("1 while the shared store is reachable")
          .register(r);
    }
  }
}
