package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The A/B harness in a tiny configuration, this build's PDP on both sides (the reactor packaged
 * pdp-server before bench): two processes start, both are loaded, and the three ratios are
 * reported. Building a ref takes minutes: that part is the operator's, not CI's.
 */
class PdpAbSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsTheThreeRatios() throws Exception {
    Path jar = Path.of("..", "pdp-server", "target", "pdp-server.jar");
    Assumptions.assumeTrue(Files.isRegularFile(jar), "pdp-server is not packaged: " + jar);
    Assumptions.assumeTrue(CPrograms.why() == null, "no C load generator: " + CPrograms.why());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream was = System.out;
    int rc;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      rc =
          new CommandLine(new PdpAb())
              .execute(
                  "--a-jar", jar.toString(),
                  "--b-jar", jar.toString(),
                  "--policy", "../config/policy-rules.xml",
                  "--rounds", "2",
                  "--seconds", "1",
                  "--warm", "1",
                  "--round-trips", "200");
    } finally {
      System.setOut(was);
    }
    String report = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, report);
    for (String what :
        new String[] {"pipelined rate", "CPU per answer", "REQ/DEC round trip \\(median\\)"}) {
      assertTrue(
          report.matches("(?s).*\\n  " + what + " +\\d+\\.\\d\\dx \\[.*"), what + "\n" + report);
    }
  }
}
