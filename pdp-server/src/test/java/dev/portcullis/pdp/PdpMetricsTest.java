package dev.portcullis.pdp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.DurableFiles;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A PDP with {@code <metrics>}: Prometheus text with its decisions, /health and /ready. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PdpMetricsTest {
  @TempDir Path dir;

  private static String get(PdpServer pdp, String path, int expectStatus) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + pdp.metricsAddress().getPort() + path))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(expectStatus, r.statusCode(), path + ": " + r.body());
    return r.body();
  }

  static AccessRequest request(String service, int port) throws Exception {
    return new AccessRequest(
        AccessOperation.ACCESS,
        "alice",
        null,
        null,
        InetAddress.getByName("192.0.2.1"),
        40000,
        InetAddress.getByName("10.1.2.3"),
        port,
        6,
        service,
        AccessMode.READ,
        null,
        null);
  }

  /** A PDP on loopback with {@code rules} for 0xC0A5 and its metrics endpoint on a free port. */
  static PdpServer withMetrics(Path dir, String rules) throws Exception {
    Files.writeString(dir.resolve("rules.xml"), rules);
    Path xml = dir.resolve("pdp.xml");
    Files.writeString(
        xml,
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<metrics listen=\"127.0.0.1:0\"/></pdp>");
    return PdpServer.start(PdpConfig.load(xml), 1);
  }

  @Test
  void decisionsByClientTypeAndOutcomeAreScraped() throws Exception {
    try (PdpServer pdp =
            withMetrics(
                dir,
                "<rules><rule id=\"ssh\" decision=\"install\"><match service=\"ssh\"/></rule>"
                    + "<default decision=\"remove\"/></rules>");
        BlockingPep pep = new BlockingPep(pdp.address(), 0xC0A5, "gw-1")) {
      AccessRequest ssh = request("ssh", 22);
      assertTrue(pep.ask("h1", ssh) && pep.ask("h2", ssh), "installed");
      AccessRequest web = request("web", 80);
      assertFalse(pep.ask("h3", web), "removed");

      String m = get(pdp, "/metrics", 200);
      String common = "client_type=\"0xC0A5\",component=\"pdp\",engine=\"rules\"";
      assertTrue(
          m.contains("portcullis_pdp_decisions_total{" + common + ",outcome=\"install\"} 2.0"), m);
      assertTrue(
          m.contains("portcullis_pdp_decisions_total{" + common + ",outcome=\"remove\"} 1.0"), m);
      assertTrue(m.contains("portcullis_pdp_peps_connected{component=\"pdp\"} 1.0"), m);
      assertTrue(m.contains("portcullis_pdp_decision_seconds_count{component=\"pdp\"} 3"), m);
      assertTrue(m.contains("portcullis_pdp_decision_seconds_bucket{component=\"pdp\",le="), m);
      assertTrue(
          m.contains("portcullis_pdp_tls_handshakes_total{component=\"pdp\",kind=\"full\"} 0.0"),
          m);
      assertTrue(
          m.contains(
              "portcullis_crypto_provider_info{algorithm=\"HmacSHA256\",component=\"pdp\",provider=\""),
          m);
      assertEquals("ok\n", get(pdp, "/health", 200));
      assertEquals("ready\n", get(pdp, "/ready", 200));
      pdp.drain(Duration.ZERO); // what SIGTERM does first
      assertEquals("listening: draining\n", get(pdp, "/ready", 503));
      assertEquals("ok\n", get(pdp, "/health", 200));
    }
  }

  @Test
  void withoutTheElementThereIsNoEndpoint() throws Exception {
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Path xml = dir.resolve("pdp.xml");
    Files.writeString(
        xml,
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(xml), 1)) {
      assertNull(pdp.metricsAddress());
    }
  }

  /**
   * A fleet PDP whose ZooKeeper connection drops and comes back (Curator: SUSPENDED, then
   * RECONNECTED) is ready again and reports its store connected. It used to answer 503 "store:
   * store reconnected" for good: the check knew only CONNECTED.
   */
  @Test
  void aFleetPdpIsReadyAgainOnceItsStoreReconnects() throws Exception {
    try (TestingServer zk = new TestingServer(true)) {
      DurableFiles.write(dir.resolve("zk.secret"), "portcullis:metrics-test\n".getBytes());
      Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
      Path xml = dir.resolve("pdp.xml");
      Files.writeString(
          xml,
          "<pdp><state store=\"zookeeper\" connect=\""
              + zk.getConnectString()
              + "\" namespace=\"/portcullis/metrics\" session-timeout=\"PT20S\""
              + " auth-file=\"zk.secret\"/>"
              + "<listen address=\"127.0.0.1\" port=\"0\"/>"
              + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
              + "<metrics listen=\"127.0.0.1:0\"/></pdp>");
      try (PdpServer pdp = PdpServer.start(PdpConfig.load(xml), 1)) {
        assertEquals("ready\n", get(pdp, "/ready", 200));
        zk.restart(); // the same server back on its port: the session survives, Curator reconnects
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> get(pdp, "/ready", 200).equals("ready\n"));
        assertTrue(
            get(pdp, "/metrics", 200)
                .contains("portcullis_pdp_store_connected{component=\"pdp\"} 1.0"));
      }
    }
  }
}
