package dev.portcullis.active.cli;

import dev.portcullis.active.Domain;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.metrics.CryptoMeters;
import dev.portcullis.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The ROSA components' metrics and health endpoints ({@code metrics="ADDRESS:PORT"} on a router,
 * the Authorization Server or the Code Server in {@code rosa.xml}). Prometheus names:
 *
 * <ul>
 *   <li>router: {@code portcullis_router_packets_total{router, outcome}} (every {@link Outcome}:
 *       {@code accepted}, and each drop by its reason: {@code bad_mac}, {@code replay}, {@code
 *       expired}...), {@code portcullis_router_flow_sessions}, {@code
 *       portcullis_router_key_derivations_total}, {@code
 *       portcullis_router_code_secret_fetches_total}, {@code portcullis_router_high_water_marks};
 *   <li>Authorization and Code Server: {@code portcullis_https_refused_total{reason}} ({@code
 *       connections}, {@code timed_out}, {@code too_large}, {@code malformed});
 *   <li>all: {@code portcullis_crypto_provider_info{algorithm, provider}} and the JVM's meters.
 * </ul>
 */
final class ComponentMetrics {
  private ComponentMetrics() {}

  static MetricsEndpoint router(InetSocketAddress listen, Domain d, ActiveRouter r)
      throws IOException {
    MetricsEndpoint m = MetricsEndpoint.start(listen, "active-router");
    MeterRegistry reg = m.registry();
    Counters c = r.counters();
    for (Outcome o : Outcome.values()) {
      FunctionCounter.builder("portcullis.router.packets", c, x -> x.get(o))
          .description("Packets by what became of them")
          .tags("router", r.id(), "outcome", o.name().toLowerCase(Locale.ROOT))
          .register(reg);
    }
    FlowKeys k = r.keys();
    Gauge.builder("portcullis.router.flow.sessions", k, FlowKeys::sessionCount)
        .tag("router", r.id())
        .register(reg);
    FunctionCounter.builder("portcullis.router.key.derivations", k, FlowKeys::derivations)
        .tag("router", r.id())
        .register(reg);
    FunctionCounter.builder("portcullis.router.code.secret.fetches", k, FlowKeys::fetches)
        .tag("router", r.id())
        .register(reg);
    Gauge.builder("portcullis.router.high.water.marks", k, FlowKeys::highWaterMarks)
        .tag("router", r.id())
        .register(reg);
    CryptoMeters.bind(m, d::registry);
    return m;
  }

  /**
   * The Authorization or Code Server's endpoint: its HTTPS refusals. Opened once the server listens
   * and closed before it stops, so {@code /ready} answers 200 while it is open.
   */
  static MetricsEndpoint server(
      InetSocketAddress listen, String component, Domain d, HttpsEndpoint.Stats s)
      throws IOException {
    MetricsEndpoint m = MetricsEndpoint.start(listen, component);
    MeterRegistry reg = m.registry();
    refused(reg, "connections", s, x -> x.connectionsRefused.sum());
    refused(reg, "timed_out", s, x -> x.timedOut.sum());
    refused(reg, "too_large", s, x -> x.tooLarge.sum());
    refused(reg, "malformed", s, x -> x.badRequests.sum());
    CryptoMeters.bind(m, d::registry);
    return m;
  }

  private static void refused(
      MeterRegistry reg,
      String reason,
      HttpsEndpoint.Stats s,
      ToDoubleFunction<HttpsEndpoint.Stats> f) {
    FunctionCounter.builder("portcullis.https.refused", s, f)
        .description("HTTPS requests and connections refused")
        .tag("reason", reason)
        .register(reg);
  }
}
