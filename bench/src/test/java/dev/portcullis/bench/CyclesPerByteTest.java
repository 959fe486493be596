package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CyclesPerByteTest {
  @TempDir Path tmp;

  @Test
  void nanosecondsTimesGigahertzOverBytes() {
    // 1,024 bytes in 1,000 ns at 2.048 GHz: 2,048 cycles, 2 per byte.
    assertEquals(2.0, CyclesPerByte.cyclesPerByte(1000, 1024, 2.048), 1e-12);
  }

  @Test
  void readsAJmhResult() throws Exception {
    Path f = tmp.resolve("r.json");
    Files.writeString(
        f,
        "[{\"benchmark\":\"dev.portcullis.bench.HmacProviderBenchmark.mac\","
            + "\"params\":{\"provider\":\"SunJCE\",\"size\":\"64\"},"
            + "\"primaryMetric\":{\"score\":320.0,\"scoreUnit\":\"ns/op\"}},"
            + "{\"benchmark\":\"x.Y.z\",\"params\":{},\"primaryMetric\":{\"score\":1,"
            + "\"scoreUnit\":\"ns/op\"}}]");
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new CyclesPerByte());
    cl.setOut(new PrintWriter(out));
    assertEquals(0, cl.execute("--ghz", "2", f.toString()));
    assertTrue(out.toString().contains("HmacProviderBenchmark.mac SunJCE"), out.toString());
    assertTrue(out.toString().contains("10.00"), "320 ns x 2 GHz / 64 B = 10 cycles per byte");
  }
}
