package dev.portcullis.bench.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.tunnel.lab.NetworkLab;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The tunnel benchmark in a tiny configuration, bare and through the PDP, warmed, in two rounds: it
 * runs, gives each round's ratios and their median, and leaves no SA behind.
 */
class TunnelSetupBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void threeTunnelsUpAndDownWithNoneLeft() {
    String why = NetworkLab.unavailable();
    assumeTrue(why == null, why);
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new TunnelSetupBench());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(out));
    cl.setExecutionExceptionHandler(
        (e, c, p) -> {
          e.printStackTrace(new PrintWriter(out));
          return 1;
        });
    int rc =
        cl.execute(
            "--tunnels", "3", "--block", "2", "--stream", "1", "--rounds", "2", "--warmup", "2");
    assertEquals(0, rc, out.toString());
    assertTrue(out.toString().contains("initiate -> CHILD_SA up"), out.toString());
    assertTrue(out.toString().contains("failed 0, up after set-up 3 of 3"), out.toString());
    assertTrue(out.toString().contains("SAs left 0"), out.toString());
    assertTrue(out.toString().contains("request -> CHILD_SA up"), out.toString());
    assertTrue(
        out.toString().contains("failed 0, up after set-up 3 of 3, SAs left 0, keys left 0"),
        "the certified tunnels: " + out);
    assertTrue(out.toString().contains("through the tunnel, confidentiality"), out.toString());
    assertTrue(
        out.toString().contains("failed 0, revocations unseen 0, SAs left 0"), out.toString());
    assertTrue(
        out.toString().contains("same lab, one-time key pairs, certificates"),
        "the PDP's certificate tunnels: " + out);
    assertEquals(
        4,
        out.toString().split("failed 0, revocations unseen 0, SAs left 0", -1).length - 1,
        "both PDP rounds, PSK and certificates, in each of two rounds: " + out);
    assertTrue(out.toString().contains("-- round 2 of 2 --"), out.toString());
    assertTrue(
        out.toString().matches("(?s).*pre-shared keys +rounds [0-9.]+ [0-9.]+; median [0-9.]+.*"),
        out.toString());
    assertTrue(
        out.toString().matches("(?s).*certificates +rounds [0-9.]+ [0-9.]+; median [0-9.]+.*"),
        out.toString());
  }
}
