package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The PCMM harness in a tiny configuration: it runs, and no gate is lost or set twice. */
class PcmmLoadSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void setsQueriesDeletesAndRevokesEveryGate() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new PcmmLoad());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute(
            "--policy", "../config/policy-rules.xml",
            "--cmts", "3",
            "--gates", "300",
            "--round-trips", "40",
            "--rounds", "2",
            "--revoke", "30",
            "--warm-up-seconds", "0");
    assertEquals(0, rc, out.toString());
    assertTrue(out.toString().contains("lost 0, set twice 0"), out.toString());
    assertTrue(out.toString().contains("30 of 60 gates deleted"), out.toString());
    assertTrue(out.toString().contains("Gate-Set / REQ-DEC via PepClient"), out.toString());
    assertTrue(out.toString().contains("CPU per exchange"), out.toString());
  }
}
