package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The teardown harness in a tiny configuration: it runs and reports both kinds of close. */
class TeardownBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsBothKindsOfClose() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new TeardownBench());
    cl.setOut(new PrintWriter(out));
    int rc = cl.execute("--states", "20", "--rounds", "3");
    assertEquals(0, rc, out.toString());
    assertTrue(out.toString().contains("no states"), out.toString());
    assertTrue(out.toString().contains("20 states"), out.toString());
  }
}
