package dev.portcullis.pep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulationReportTest {
  @Test
  void thePdpSideIsReadFromItsAuditRecords(@TempDir Path dir) throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    Files.write(
        audit,
        List.of(
            "{\"ts\":100,\"event\":\"opened\",\"pep\":\"sim-pep-0\",\"acceptToOpenNanos\":9,\"openNanos\":9}",
            "{\"ts\":2000,\"event\":\"opened\",\"pep\":\"sim-pep-1\",\"acceptToOpenNanos\":5000,\"openNanos\":700}",
            "{\"ts\":2001,\"event\":\"decision\",\"pep\":\"sim-pep-1\",\"latencyNanos\":3000}",
            "{\"ts\":2002,\"event\":\"decision\",\"pep\":\"gw-1\",\"latencyNanos\":1}",
            "{\"ts\":2003,\"event\":\"disconnected\",\"pep\":\"sim-pep-1\",\"connectionNanos\":90000}",
            ""));
    List<SessionTimes> t = SimulationReport.fromAudit(audit, 1000, "sim-pep-");
    assertEquals(
        List.of("accept -> OPN", "OPN -> CAT", "REQ -> DEC", "whole connection"),
        t.stream().map(SessionTimes::name).toList());
    assertEquals(5000, t.get(0).min(), "the record before the run is not counted");
    assertEquals(1, t.get(2).count(), "another PEP's decision is not counted");
    assertEquals(3000, t.get(2).quantile(0.5));
    assertEquals(90000, t.get(3).max());
    StringWriter out = new StringWriter();
    SimulationReport.print(new PrintWriter(out), "PDP side:", t);
    assertTrue(out.toString().contains("REQ -> DEC"), out.toString());
    assertTrue(out.toString().contains("3.0"), out.toString());
  }

  @Test
  void quantilesAreNearestRank() {
    SessionTimes t = new SessionTimes("x", new long[] {5, 1, 4, 2, 3});
    assertEquals(1, t.min());
    assertEquals(3, t.quantile(0.5));
    assertEquals(5, t.quantile(0.99));
    assertEquals(0, new SessionTimes("empty", new long[0]).quantile(0.5));
  }
}
