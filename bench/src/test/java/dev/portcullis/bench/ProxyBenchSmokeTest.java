package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The proxy harness in a tiny configuration: it runs and reports every cell. */
class ProxyBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryCell() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new ProxyBench());
    cl.setOut(new PrintWriter(out));
    int rc = cl.execute("--connects", "20", "--megabytes", "2", "--open", "20", "--rounds", "2");
    String report = out.toString();
    assertEquals(0, rc, report);
    assertTrue(report.contains("Portcullis proxy (a decision each)"), report);
    assertTrue(report.contains("connecting with the request"), report);
    assertTrue(report.contains("anchor: "), report); // HAProxy, or why there is none
    assertTrue(report.contains("reusing the subject's grant"), report);
    assertTrue(
        report.contains("20 open connections (each decided on its own request) cut"), report);
    assertTrue(report.contains("20 open connections (admitted on one reused grant) cut"), report);
    assertTrue(report.contains("revoked 40"), report);
    assertTrue(report.contains("all 20 closed"), report);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aRouteAloneRunsWithoutTheOthersOrTheRevocation() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new ProxyBench());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int rc =
        cl.execute(
            "--routes",
            "reuse",
            "--connects",
            "10",
            "--megabytes",
            "1",
            "--open",
            "0",
            "--rounds",
            "1");
    String report = out.toString();
    assertEquals(0, rc, report + err);
    assertTrue(report.contains("reusing the subject's grant"), report);
    assertFalse(report.contains("a decision each"), report);
    assertFalse(report.contains("revocation:"), report);

    assertEquals(2, cl.execute("--routes", "nowhere"), "an unknown route is a usage error");
    assertTrue(err.toString().contains("--routes: no route nowhere"), err.toString());
  }
}
