package dev.portcullis.active.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Domain;
import dev.portcullis.active.TestDomain;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.metrics.MetricsEndpoint;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A router's and the Authorization Server's endpoints (metrics="..." in rosa.xml) scraped. */
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

  @Test
  void aRoutersPacketsByOutcomeAndTheServersRefusals() throws Exception {
    RosaConfig config =
        TestDomain.config(
            dir,
            xml ->
                xml.replaceFirst(
                        "<router id=\"ar-1\"", "<router id=\"ar-1\" metrics=\"127.0.0.1:0\"")
                    .replaceFirst("<auth-server ", "<auth-server metrics=\"127.0.0.1:0\" "));
    assertNotNull(config.metricsOf("ar-1"));
    assertNotNull(config.metricsOf(RosaConfig.AUTH_SERVER));
    assertNull(config.metricsOf("ar-2"));
    assertNull(config.metricsOf(RosaConfig.CODE_SERVER));
    Domain d = new Domain(config, Clock.systemUTC());
    try (var cs = d.codeServer();
        var as = d.authServer();
        ActiveRouter ar1 = d.router("ar-1");
        MetricsEndpoint rm = ComponentMetrics.router(config.metricsOf("ar-1"), d, ar1);
        MetricsEndpoint am =
            ComponentMetrics.server(
                config.metricsOf(RosaConfig.AUTH_SERVER),
                RosaConfig.AUTH_SERVER,
                d,
                as.httpStats());
        DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      assertTrue(cs.address().getPort() > 0, "the Code Server serves the router's codes");
      long now = System.currentTimeMillis() / 1000;
      SessionGrant g =
          d.source("alice")
              .request(
                  "forward",
                  "127.0.0.1",
                  "127.0.0.1",
                  now - 1,
                  now + 300,
                  MacAlgorithm.HMAC_SHA256_128,
                  false);
      PacketSealer sealer = g.sealer(d.registry());
      g.destroy();
      byte[] good = sealer.seal("one".getBytes(StandardCharsets.US_ASCII));
      byte[] forged = sealer.seal("two".getBytes(StandardCharsets.US_ASCII));
      forged[forged.length - 1] ^= 1;
      sealer.destroy();
      for (byte[] p : new byte[][] {good, forged}) {
        udp.send(new DatagramPacket(p, p.length, ar1.address()));
      }
      for (int i = 0;
          i < 500 && ar1.counters().get(Outcome.ACCEPTED) + ar1.counters().get(Outcome.BAD_MAC) < 2;
          i++) {
        Thread.sleep(10);
      }
      String m = scrape(rm);
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
      String a = scrape(am);
      assertTrue(
          a.contains(
              "portcullis_https_refused_total{component=\"auth-server\",reason=\"malformed\"} 0.0"),
          a);
      assertEquals(1, ar1.counters().get(Outcome.BAD_MAC));
    }
  }
}
