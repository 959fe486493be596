package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The revocation harness in a tiny configuration: every Remove of the revoked subject arrives, the
 * other subject's none.
 */
class RevocationBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void everyRemoveArrivesAndNothingElseMoves() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new RevocationBench());
    cl.setOut(new PrintWriter(out));
    int rc = cl.execute("--decisions", "40", "--peps", "2", "--rounds", "2");
    assertEquals(0, rc, out.toString());
    assertTrue(out.toString().contains("command sent -> last Remove at its PEP"), out.toString());
    assertTrue(out.toString().contains("removed: 0 (expected 0)"), out.toString());
  }
}
