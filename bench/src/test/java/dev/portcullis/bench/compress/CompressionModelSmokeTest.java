package dev.portcullis.bench.compress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CompressionModelSmokeTest {
  @TempDir Path tmp;

  /** The command in a tiny configuration, {@code extra} options added. */
  int run(StringWriter out, String... extra) {
    CommandLine cl = new CommandLine(new CompressionModel());
    cl.setOut(new PrintWriter(out));
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--millis",
                "5",
                "--size",
                "1024",
                "--crypto-config",
                Path.of("..", "config", "crypto-providers.xml").toString(),
                "--samples",
                Path.of("..", "config").toString(),
                "--out",
                tmp.toString()));
    args.addAll(List.of(extra));
    return cl.execute(args.toArray(new String[0]));
  }

  @Test
  void measuresEvaluatesAndWarns() throws Exception {
    Files.writeString(tmp.resolve("mine.txt"), "a stranger's file in --out");
    StringWriter out = new StringWriter();
    int code = run(out);
    assertEquals(0, code, out.toString());
    String s = out.toString();
    assertTrue(s.contains("CRIME, BREACH"), s);
    assertTrue(s.contains("100 Gbit/s") && s.contains("56 kbit/s"), s);
    assertTrue(s.contains("policy XML lz4"), s);
    assertTrue(Files.readString(tmp.resolve("speedup.svg")).startsWith("<svg"));
    assertTrue(Files.exists(tmp.resolve("results.json")));
    assertEquals("a stranger's file in --out", Files.readString(tmp.resolve("mine.txt")));
  }

  @Test
  void everyCodecRoundTripsEveryPayload() throws Exception {
    for (byte[] p : Corpus.of(4096, Path.of("..", "config")).values()) {
      for (Codec c : List.of(Codec.deflate(1), Codec.deflate(9), Codec.lz4())) {
        byte[] back = new byte[p.length];
        c.decompress(c.compress(p), back);
        assertTrue(Arrays.equals(p, back), c.name);
      }
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(240)
  void throughTheLabEveryPayloadAndCodecHasItsPredictionAndItsMeasurement() throws Exception {
    String why = dev.portcullis.tunnel.lab.NetworkLab.unavailable();
    org.junit.jupiter.api.Assumptions.assumeTrue(why == null, why);
    StringWriter out = new StringWriter();
    int code = run(out, "--network", "lab", "--lab-bytes", "65536", "--lab-repeats", "1");
    assertEquals(0, code, out.toString());
    var rows =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(tmp.resolve("results.json").toFile())
            .get("throughTheLab");
    assertEquals(15, rows.size(), "5 payloads, 3 codecs: " + out);
    for (var r : rows) {
      assertTrue(r.get("measuredSpeedup").asDouble() > 0, r.toString());
      assertTrue(r.get("predictedSpeedup").asDouble() > 0, r.toString());
      assertTrue(r.get("pathBps").asDouble() > 1e6, "ESP carried more than a Mbit/s: " + r);
    }
  }

  @Test
  void aVerdictComparesSidesOfEvenAndExplainsADisagreement() {
    assertEquals("agrees", LabCheck.verdict(1.4, 1.2));
    assertEquals("agrees", LabCheck.verdict(0.6, 0.8));
    assertEquals("agrees within 5 % of even", LabCheck.verdict(1.02, 0.7));
    assertTrue(LabCheck.verdict(0.9, 1.3).startsWith("DISAGREES: pays though"));
    assertTrue(LabCheck.verdict(1.3, 0.8).startsWith("DISAGREES: loses though"));
  }
}
