package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The OPA comparison in a tiny configuration, where OPA and wrk are installed (skipped with the
 * harness's own reason where they are not): OPA gives the rules' decision, and every cell reports.
 */
class OpaCompareSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryCell() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new OpaCompare());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute("--seconds", "1", "--rounds", "1", "--policy", "../config/policy-rules.xml");
    String report = out.toString();
    assumeFalse(report.startsWith("nothing to compare with"), report.strip());
    assertEquals(0, rc, report);
    assertTrue(report.contains("\"rule\":\"ops-ssh\""), report); // the PDP's rule, in Rego
    assertTrue(report.contains("PDP / OPA, 16 connections x 1"), report);
  }
}
