package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.Prometheus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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

  @Test
  void prometheusScrapesThePdpAndQueriesItsDecisions() throws Exception {
    try (PdpServer pdp =
            PdpMetricsTest.withMetrics(dir, "<rules><default decision=\"remove\"/></rules>");
        BlockingPep pep = new BlockingPep(pdp.address(), 0xC0A5, "gw-1");
        Prometheus prometheus = Prometheus.start(dir, Map.of("pdp", pdp.metricsAddress()))) {
      AccessRequest r = PdpMetricsTest.request("ssh", 22);
      for (int i = 0; i < 3; i++) {
        pep.ask("h" + i, r);
      }
      String answer =
          prometheus.query(
              "portcullis_pdp_decisions_total{outcome=\"remove\"}",
              a -> a.contains("\"3\"]"),
              Duration.ofSeconds(60));
      assertTrue(
          answer.contains("\"client_type\":\"0xC0A5\"") && answer.contains("\"3\"]"), answer);
    }
  }
}
