package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every gate's life in the hash-chained audit, the decision first. */
@Timeout(60)
class GateAuditTest {
  @TempDir Path dir;

  @Test
  void aGatesLifeIsRecordedInOrderAndChained() throws Exception {
    Path file = dir.resolve("gates.jsonl");
    SubscriberLimits limits = new SubscriberLimits(1, Set.of());
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        AuditLog audit = AuditLog.open(file);
        PolicyServer ps = PolicyServer.start(sim.addresses(), limits, FAST)) {
      ps.addListener(new GateAudit(audit));
      join(ps.ready());
      Gate a = join(ps.set("cmts-1", request(1, "VoIP_UP", 5060)));
      failure(ps.set("cmts-1", request(1, "VoIP_UP", 5061))); // over the limit of 1
      failure(ps.set("cmts-1", request(2, "Gold", 80))); // unknown to the CMTS
      Gate b = join(ps.set("cmts-1", request(3, "BE", 80)));
      join(ps.delete(a, "application manager asked"));
      limits.limits(1, Set.of("VoIP_UP"));
      assertEquals(1, join(ps.reevaluate()));
      assertEquals(0, ps.gates().size());
      assertTrue(b.gateId() != 0);
    }
    AuditChain.Verdict v = AuditChain.verify(file);
    assertTrue(v.intact(), v.problem());
    List<String> events =
        Files.readAllLines(file).stream()
            .map(l -> l.replaceAll(".*\"event\":\"([a-z-]+)\".*", "$1"))
            .toList();
    assertEquals(
        List.of(
            "gate-allowed", // 10.1.0.1, VoIP_UP
            "gate-set",
            "gate-refused", // the limit, before anything is sent
            "gate-allowed", // Gold: allowed here, refused by the CMTS
            "gate-refused",
            "gate-allowed", // 10.1.0.3, BE
            "gate-set",
            "gate-deleted", // asked for
            "gate-deleted"), // the policy change
        events);
    List<String> lines = Files.readAllLines(file);
    assertTrue(lines.get(2).contains("limit 1"), lines.get(2));
    assertTrue(lines.get(4).contains("Undefined Service Class Name"), lines.get(4));
    assertTrue(lines.get(8).contains("service class BE not allowed"), lines.get(8));
    assertTrue(lines.get(1).contains("\"subscriber\":\"10.1.0.1\""), lines.get(1));
  }
}
