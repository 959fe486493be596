package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The fleet harness in a tiny configuration: it runs on a real ensemble and reports each cell. */
class FleetBenchSmokeTest {
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void reportsEveryCell() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new FleetBench());
    cl.setOut(new PrintWriter(out));
    int rc =
        cl.execute(
            "--round-trips", "40",
            "--changes", "3",
            "--decisions", "400",
            "--rounds", "2",
            "--failover-peps", "20",
            "--policy", "../config/policy-mls.xml");
    String report = out.toString();
    assertEquals(0, rc, report);
    for (String cell :
        new String[] {
          "fleet, cached, session on another PDP",
          "fleet, linearizable, session on another PDP",
          "LOGOUT",
          "fleet PDP, cached (ZooKeeper store)",
          "20 of 20"
        }) {
      assertTrue(report.contains(cell), cell + " in\n" + report);
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theDemoRunsAFleetAndAFailover() {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new FleetDemo());
    cl.setOut(new PrintWriter(out));
    int rc = cl.execute("--peps", "30", "--policy", "../config/policy-mls.xml");
    String report = out.toString();
    assertEquals(0, rc, report);
    assertTrue(report.contains("10 PEPs re-homed"), report);
    assertTrue(report.contains("ACCESS allowed after the failover: 30 of 30 (before: 30)"), report);
  }

  /** More PEPs than the process may open files for: said at once, not as a failed connect. */
  @Test
  void moreDemoPepsThanOpenFilesIsAUsageError() {
    long limit = FleetDemo.openFileLimit();
    Assumptions.assumeTrue(limit > 0 && limit < Integer.MAX_VALUE / 2, "no open-file limit here");
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new FleetDemo());
    cl.setErr(new PrintWriter(err));
    int peps = (int) limit / 2;
    assertEquals(
        2, cl.execute("--peps", String.valueOf(peps), "--policy", "../config/policy-mls.xml"));
    assertTrue(err.toString().contains("open files"), err.toString());
  }

  @Test
  void aMissingPolicyIsAUsageError() {
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new FleetBench());
    cl.setErr(new PrintWriter(err));
    assertEquals(2, cl.execute("--policy", "no/such/policy.xml"));
    assertTrue(err.toString().contains("no/such/policy.xml"), err.toString());
  }
}
