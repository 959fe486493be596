package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.bench.Haproxy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The harness in a tiny configuration: every layer and metric, the JSON and the page. */
class CostOfSecuritySmokeTest {
  @TempDir Path tmp;

  @Test
  @Timeout(180)
  void everyLayerAndMetricEndsUpInTheJsonAndThePage() throws Exception {
    // --out is a directory of the user's, with a file of theirs in it: it must stay
    Files.writeString(tmp.resolve("mine.txt"), "kept");
    // What it prints is read only if it fails: a green build shows nothing of it.
    StringWriter printed = new StringWriter();
    int code =
        new CommandLine(new CostOfSecurity())
            .setOut(new PrintWriter(printed, true))
            .setErr(new PrintWriter(printed, true))
            .execute(
                "--trials",
                "2",
                "--warmup",
                "1",
                "--rounds",
                "1",
                "--rr-batch",
                "2",
                "--stream-batch",
                "32",
                "--window",
                "8",
                "--engines",
                "openssl,jdk",
                "--samples",
                Path.of("..", "config").toString(),
                "--out",
                tmp.toString());
    assertEquals(0, code, printed.toString());
    assertEquals("kept", Files.readString(tmp.resolve("mine.txt")), "only the run's own files");
    JsonNode root = new ObjectMapper().readTree(tmp.resolve("results.json").toFile());
    Set<String> layers = new HashSet<>();
    int cells = 0;
    for (JsonNode c : root.get("cells")) {
      layers.add(c.get("layer").asText());
      assertEquals(2, c.get("trials").size(), c.toString());
      assertTrue(c.get("stats").get("median").asDouble() > 0, c.toString());
      cells++;
    }
    Set<String> expected =
        new HashSet<>(
            Set.of(
                "raw TCP",
                "PEP proxy (a decision each)",
                "plain",
                "integrity HMAC-MD5-96",
                "integrity HMAC-SHA-256-128",
                "TLS openssl",
                "TLS jdk",
                "TLS openssl + integrity",
                "rules engine",
                "multilevel engine"));
    int proxies = 1;
    if (Haproxy.find() != null) { // the anchor runs where HAProxy is installed
      expected.add("HAProxy (no decision)");
      proxies++;
    }
    assertEquals(expected, layers);
    assertEquals(
        6 * (1 + proxies) + 5 * 6 + 3 * 7,
        cells,
        "raw and proxied: 6 metrics; COPS: 6, and CC_RESUMED with TLS");
    String html = Files.readString(tmp.resolve("report.html"), StandardCharsets.UTF_8);
    assertTrue(html.contains("<svg"));
    assertTrue(
        !html.contains("<script") && !html.contains("<link") && !html.contains("src="),
        "nothing fetched: the page renders offline");
    assertTrue(html.contains("Overhead against the base case"));
  }
}
