package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.cops.access.AccessRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's {@code prometheus}; the test runs where it is installed) scrapes a
 * PDP's endpoint, and its query API returns the PDP's decision counter: the exposition is what
 * Prometheus itself parses, not only what our own test reads.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PrometheusScrapeTest {
  @TempDir Path dir;

  private static Path prometheus() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(d, "prometheus");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void prometheusScrapesThePdpAndQueriesItsDecisions() throws Exception {
    Path bin = prometheus();
    assumeTrue(bin != null, "prometheus is not installed here");
    try (PdpServer pdp =
            PdpMetricsTest.withMetrics(dir, "<rules><default decision=\"remove\"/></rules>");
        BlockingPep pep = new BlockingPep(pdp.address(), 0xC0A5, "gw-1")) {
      AccessRequest r = PdpMetricsTest.request("ssh", 22);
      for (int i = 0; i < 3; i++) {
        pep.ask("h" + i, r);
      }
      Files.writeString(
          dir.resolve("prometheus.yml"),
          "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pdp\n"
              + "    static_configs:\n      - targets: ['127.0.0.1:"
              + pdp.metricsAddress().getPort()
              + "']\n");
      int web = freePort();
      Process p =
          new ProcessBuilder(
                  bin.toString(),
                  "--config.file=" + dir.resolve("prometheus.yml"),
                  "--storage.tsdb.path=" + dir.resolve("tsdb"),
                  "--web.listen-address=127.0.0.1:" + web)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      try {
        String query =
            URLEncoder.encode(
                "portcullis_pdp_decisions_total{outcome=\"remove\"}", StandardCharsets.UTF_8);
        URI api = URI.create("http://127.0.0.1:" + web + "/api/v1/query?query=" + query);
        HttpClient http = HttpClient.newHttpClient();
        String last = "";
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end && !last.contains("\"3\"]")) {
          Thread.sleep(500);
          try {
            last =
                http.send(
                        HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body();
          } catch (java.io.IOException e) {
            last = e.toString(); // not listening yet
          }
        }
        assertTrue(
            last.contains("\"client_type\":\"0xC0A5\"") && last.contains("\"3\"]"),
            "Prometheus's answer: "
                + last
                + "\n"
                + Files.readString(dir.resolve("prometheus.log")));
      } finally {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }
}
