package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
