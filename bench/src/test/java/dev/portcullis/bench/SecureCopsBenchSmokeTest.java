package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The security-layer harness in a tiny configuration: it runs and reports every cell. */
class SecureCopsBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryCell() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new SecureCopsBench());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute(
            "--connects", "4",
            "--round-trips", "20",
            "--decisions", "256",
            "--window", "16",
            "--rounds", "2",
            "--warm-up-seconds", "0",
            "--engines", "openssl,jdk");
    String report = out.toString();
    assertEquals(0, rc, report);
    for (String cell :
        new String[] {
          "plain",
          "openssl TLSv1.3 full",
          "openssl TLSv1.3 resumed",
          "jdk TLSv1.2 resumed",
          "integrity (HMAC-SHA-256-128)",
          "TLS 1.3 + integrity"
        }) {
      assertTrue(report.contains(cell), cell + " in\n" + report);
    }
    // The resumed cells really resumed: one full handshake, then only resumptions.
    assertTrue(report.matches("(?s).*openssl TLSv1\\.3 resumed .* 1f/\\d+r.*"), report);
  }
}
