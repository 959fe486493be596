package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network mode in a tiny configuration, as its own process (it moves its threads into the lab's
 * namespaces, which a test JVM must not have done to its threads): every layer crosses the lab, the
 * IPsec layers are there with their cells, the IKE layer has its connect. Skips with one line where
 * the lab cannot run.
 */
class NetworkModeSmokeTest {
  @TempDir Path tmp;

  @Test
  @Timeout(240)
  void theIpsecLayersCrossTheLabBesideTheOthers() throws Exception {
    String why = NetworkPaths.unavailable();
    assumeTrue(why == null, why);
    Path log = tmp.resolve("run.txt");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                CostOfSecurity.class.getName(),
                "--network",
                "lab",
                "--trials",
                "2",
                "--warmup",
                "0",
                "--rounds",
                "1",
                "--rr-batch",
                "2",
                "--stream-batch",
                "16",
                "--window",
                "8",
                "--engines",
                "openssl",
                "--samples",
                Path.of("..", "config").toString(),
                "--out",
                tmp.resolve("out").toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertTrue(p.waitFor(200, TimeUnit.SECONDS), "done in time: " + Files.readString(log));
    assertEquals(0, p.exitValue(), Files.readString(log));
    JsonNode root = new ObjectMapper().readTree(tmp.resolve("out/results.json").toFile());
    Set<String> layers = new HashSet<>();
    Set<String> ike = new HashSet<>();
    for (JsonNode c : root.get("cells")) {
      layers.add(c.get("layer").asText());
      assertTrue(c.get("stats").get("median").asDouble() > 0, c.toString());
      if (c.get("metric").asText().equals("CC_IKE")) {
        ike.add(c.get("layer").asText());
      }
    }
    for (String l :
        List.of(
            "raw TCP",
            "plain",
            "TLS openssl",
            "raw TCP in ESP",
            "plain in ESP",
            "plain in ESP-NULL",
            "TLS openssl in ESP",
            "plain, IKE per connection")) {
      assertTrue(layers.contains(l), l + " in " + layers);
    }
    assertEquals(Set.of("plain, IKE per connection"), ike);
    assertTrue(Files.readString(log).contains("network lab: PDP in namespace"));
    String page = Files.readString(tmp.resolve("out/report.html"));
    assertTrue(page.contains("plain in ESP-NULL"), "the page shows the IPsec layers");
    assertTrue(page.contains("ESP ran in userspace"), "and says where ESP ran");
    assertTrue(page.contains("24,035"), "the paper's TLS connection beside this run's");
  }

  @Test
  @Timeout(60)
  void whereItCannotRunItSaysWhyInOneLine() throws Exception {
    Path log = tmp.resolve("refused.txt");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dportcullis.native.disable=true", // no setns: the mode cannot run, whoever runs
                // it
                "-cp",
                System.getProperty("java.class.path"),
                CostOfSecurity.class.getName(),
                "--network",
                "lab",
                "--out",
                tmp.resolve("out").toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertTrue(p.waitFor(50, TimeUnit.SECONDS));
    String out = Files.readString(log).strip();
    assertEquals(1, p.exitValue(), out);
    assertEquals(1, out.lines().count(), out);
    assertTrue(out.startsWith("cost-of-security: --network lab cannot run here: "), out);
    assertTrue(Files.notExists(tmp.resolve("out")), "nothing measured, nothing written");
  }
}
