package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import picocli.CommandLine;

/**
 * The host firewall's harness in a tiny configuration: it runs in the network lab and reports each
 * cell. Root only; one line and skipped elsewhere.
 */
@EnabledIf("labRunsHere")
class FirewallBenchSmokeTest {
  static boolean labRunsHere() {
    String why = FirewallBench.unavailable();
    if (why != null) {
      System.err.println("FirewallBenchSmokeTest skipped: " + why);
    }
    return why == null;
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryCellAndEndsEveryFlow() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new FirewallBench());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute(
            "--connects",
            "20",
            "--rounds",
            "1",
            "--megabytes",
            "2",
            "--flows",
            "20",
            "--held",
            "50");
    String report = out.toString();
    assertEquals(0, rc, report);
    for (String cell :
        new String[] {
          "firewall, a decision each",
          "firewall, on a reused grant",
          "the PDP's decision round trip",
          "firewall, an allowed flow",
          "20 of 20 ended; the last",
          "50 allowed flows made"
        }) {
      assertTrue(report.contains(cell), cell + " in\n" + report);
    }
  }
}
