package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The asynchronous-engine harness in a tiny configuration: all three engines answer. */
class AsyncEngineLoadSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryEngine() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new AsyncEngineLoad());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute(
            "--policy", "../config/policy-rules.xml", "--round-trips", "200", "--seconds", "1");
    String report = out.toString();
    assertEquals(0, rc, report);
    for (String engine : new String[] {"rules", "rules-async-now", "rules-async-hop"}) {
      assertTrue(
          report.matches("(?s).*\\n  " + engine + " .*decisions/s.*"), engine + "\n" + report);
    }
  }
}
