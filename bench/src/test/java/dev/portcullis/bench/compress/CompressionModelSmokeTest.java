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

  @Test
  void measuresEvaluatesAndWarns() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new CompressionModel());
    cl.setOut(new PrintWriter(out));
    int code =
        cl.execute(
            "--millis",
            "5",
            "--size",
            "1024",
            "--crypto-config",
            Path.of("..", "config", "crypto-providers.xml").toString(),
            "--samples",
            Path.of("..", "config").toString(),
            "--out",
            tmp.toString());
    assertEquals(0, code, out.toString());
    String s = out.toString();
    assertTrue(s.contains("CRIME, BREACH"), s);
    assertTrue(s.contains("100 Gbit/s") && s.contains("56 kbit/s"), s);
    assertTrue(s.contains("policy XML lz4"), s);
    assertTrue(Files.readString(tmp.resolve("speedup.svg")).startsWith("<svg"));
    assertTrue(Files.exists(tmp.resolve("results.json")));
  }

  @Test
  void everyCodecRoundTripsEveryPayload() throws Exception {
    for (byte[] p : CompressionModel.corpus(4096, Path.of("..", "config")).values()) {
      for (Codec c : List.of(Codec.deflate(1), Codec.deflate(9), Codec.lz4())) {
        byte[] back = new byte[p.length];
        c.decompress(c.compress(p), back);
        assertTrue(Arrays.equals(p, back), c.name);
      }
    }
  }
}
