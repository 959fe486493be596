package dev.portcullis.active.cli;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Domain;
import dev.portcullis.active.TestDomain;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.support.Prometheus;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A router's, the Authorization and the Code Server's endpoints (metrics="..." in rosa.xml). */
@Timeout(60)
class ComponentMetricsTest {
  @TempDir Path dir;

  private static String scrape(MetricsEndpoint m) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + m.address().getPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
        .body();
  }

  /** One domain with metrics on ar-1, the Authorization and the Code Server, and traffic. */
  private static final class Running implements AutoCloseable {
    final List<AutoCloseable> open = new ArrayList<>();
    RosaConfig config;
    ActiveRouter ar1;
    MetricsEndpoint router;
    MetricsEndpoint auth;
    MetricsEndpoint code;

    <T extends AutoCloseable> T keep(T c) {
      open.add(c);
      return c;
    }

    @Override
    public void close() {
      for (int i = open.size() - 1; i >= 0; i--) {
        try {
          open.get(i).close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /** Starts the domain and sends ar-1 one good and one forged packet. */
  private Running running() throws Exception {
    Running r = new Running();
    try {
      r.config =
          TestDomain.config(
              dir,
              xml ->
                  xml.replaceFirst(
                          "<router id=\"ar-1\"", "<router id=\"ar-1\" metrics=\"127.0.0.1:0\"")
                      .replaceFirst("<auth-server ", "<auth-server metrics=\"127.0.0.1:0\" ")
                      .replaceFirst("<code-server ", "<code-server metrics=\"127.0.0.1:0\" "));
      Domain d = new Domain(r.config, Clock.systemUTC());
      var cs = r.keep(d.codeServer());
      var as = r.keep(d.authServer());
      r.ar1 = r.keep(d.router("ar-1"));
      r.router = r.keep(ComponentMetrics.router(r.config.metricsOf("ar-1"), d, r.ar1));
      r.auth =
          r.keep(
              ComponentMetrics.server(
                  r.config.metricsOf(RosaConfig.AUTH_SERVER),
                  RosaConfig.AUTH_SERVER,
                  d,
                  as.httpStats()));
      r.code =
          r.keep(
              ComponentMetrics.server(
                  r.config.metricsOf(RosaConfig.CODE_SERVER),
                  RosaConfig.CODE_SERVER,
                  d,
                  cs.httpStats()));
      assertTrue(cs.address().getPort() > 0, "the Code Server serves the router's codes");
      SessionGrant g = TestDomain.loopbackGrant(d, "alice", "forward");
      PacketSealer sealer = g.sealer(d.registry());
      g.destroy();
      byte[] good = sealer.seal("one".getBytes(StandardCharsets.US_ASCII));
      byte[] forged = sealer.seal("two".getBytes(StandardCharsets.US_ASCII));
      forged[forged.length - 1] ^= 1;
      sealer.destroy();
      try (DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
        for (byte[] p : new byte[][] {good, forged}) {
          udp.send(new DatagramPacket(p, p.length, r.ar1.address()));
        }
      }
      await()
          .until(
              () ->
                  r.ar1.counters().get(Outcome.ACCEPTED) + r.ar1.counters().get(Outcome.BAD_MAC)
                      >= 2);
      return r;
    } catch (Exception | Error e) {
      r.close();
      throw e;
    }
  }

  @Test
  void aRoutersPacketsByOutcomeAndTheServersRefusals() throws Exception {
    try (Running r = running()) {
      assertNotNull(r.config.metricsOf("ar-1"));
      assertNull(r.config.metricsOf("ar-2"));
      String m = scrape(r.router);
      String tags = "component=\"active-router\",outcome=";
      assertTrue(
          m.contains(
              "portcullis_router_packets_total{" + tags + "\"accepted\",router=\"ar-1\"} 1.0"),
          m);
      assertTrue(
          m.contains(
              "portcullis_router_packets_total{" + tags + "\"bad_mac\",router=\"ar-1\"} 1.0"),
          m);
      assertTrue(
          m.contains(
              "portcullis_router_key_derivations_total{component=\"active-router\",router=\"ar-1\"} 1.0"),
          m);
      assertTrue(m.contains("portcullis_crypto_provider_info{algorithm=\"HmacSHA256\""), m);
      String a = scrape(r.auth);
      assertTrue(
          a.contains(
              "portcullis_https_refused_total{component=\"auth-server\",reason=\"malformed\"} 0.0"),
          a);
      assertTrue(scrape(r.code).contains("component=\"code-server\""));
      assertEquals(1, r.ar1.counters().get(Outcome.BAD_MAC));
    }
  }

  /** A real Prometheus scrapes all three (where it is installed; skipped elsewhere). */
  @Test
  void prometheusScrapesTheRouterAndBothServers() throws Exception {
    try (Running r = running();
        Prometheus prometheus =
            Prometheus.start(
                dir,
                Map.of(
                    "router", r.router.address(),
                    "auth-server", r.auth.address(),
                    "code-server", r.code.address()))) {
      String up =
          prometheus.query("count(up == 1)", a -> a.contains("\"3\"]"), Duration.ofSeconds(60));
      assertTrue(up.contains("\"3\"]"), "all three scraped: " + up);
      String bad =
          prometheus.query(
              "portcullis_router_packets_total{outcome=\"bad_mac\"}",
              a -> a.contains("\"1\"]"),
              Duration.ofSeconds(30));
      assertTrue(bad.contains("\"router\":\"ar-1\"") && bad.contains("\"1\"]"), bad);
    }
  }
}
