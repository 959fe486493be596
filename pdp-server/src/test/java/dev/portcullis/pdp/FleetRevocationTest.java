package dev.portcullis.pdp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's revocation on one member of a fleet is the fleet's (docs/operate.md, "On a fleet"):
 * every member removes what its PEPs hold of the subject and refuses its requests, a member that
 * starts later applies it too, and a restoration on any member ends it on all; each member's audit
 * names the operator.
 */
@Timeout(90)
class FleetRevocationTest {
  @TempDir Path dir;

  PdpServer pdp(String namespace, String name) throws Exception {
    if (!Files.exists(dir.resolve("rules.xml"))) {
      Files.writeString(dir.resolve("rules.xml"), ControlApiTest.RULES);
      DurableFiles.write(dir.resolve("zk.secret"), (FleetEnsemble.IDENTITY + "\n").getBytes());
    }
    Path cfg = dir.resolve(name + ".xml");
    Files.writeString(
        cfg,
        "<pdp><state store=\"zookeeper\" connect=\""
            + FleetEnsemble.connectString()
            + "\" namespace=\""
            + namespace
            + "\" session-timeout=\"PT6S\" auth-file=\"zk.secret\"/>"
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<audit file=\""
            + name
            + "-audit.jsonl\"/></pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  static AccessRequest access(String subject) {
    return AccessRequest.of(AccessOperation.ACCESS, subject);
  }

  /** The revocation records of a member's audit: "event subject by via". */
  List<String> acts(String name) throws Exception {
    List<String> acts = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve(name + "-audit.jsonl"))) {
      JsonNode r = new ObjectMapper().readTree(line);
      if (r.path("event").asText().startsWith("subject-")) {
        acts.add(
            r.get("event").asText()
                + " "
                + r.get("subject").asText()
                + " by "
                + r.get("by").asText()
                + (r.has("via") ? " via" : ""));
      }
    }
    return acts;
  }

  @Test
  void aRevocationOnOneMemberIsEveryMembersUntilRestoredOnAny() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "a");
        PdpServer b = pdp(ns, "b");
        BlockingPep pep = new BlockingPep(b.address(), AccessRequest.CLIENT_TYPE, "gw-1")) {
      assertTrue(pep.ask("h-alice", access("alice")));
      assertFalse(pep.ask("h-bob", access("bob")), "bob has no rule");

      assertTrue(a.revokeSubject("alice", "ops-1", "incident 42"));
      Decision removed = pep.pushed(10_000);
      assertNotNull(removed, "the PEP on the other member hears alice's Remove");
      assertFalse(BlockingPep.installs(removed));
      assertEquals("h-alice", new String(removed.handle().value().toArray()));
      assertFalse(pep.ask("h-alice-2", access("alice")), "her new request is refused there too");
      assertEquals("ops-1", b.revokedSubjects().get(0).by());
      assertEquals("incident 42", b.revokedSubjects().get(0).reason());

      try (PdpServer c = pdp(ns, "c")) {
        assertEquals(
            List.of("alice"),
            c.revokedSubjects().stream().map(r -> r.subject()).toList(),
            "a member that starts later applies the fleet's revocations");
        assertTrue(b.restoreSubject("alice", "ops-2"));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> a.revokedSubjects().isEmpty() && c.revokedSubjects().isEmpty());
      }
      assertTrue(pep.ask("h-alice-3", access("alice")), "the policy decides her again");
    }
    assertEquals(
        List.of("subject-revoked alice by ops-1", "subject-restored alice by ops-2 via"),
        acts("a"));
    assertEquals(
        List.of("subject-revoked alice by ops-1 via", "subject-restored alice by ops-2"),
        acts("b"));
    assertEquals(
        List.of("subject-revoked alice by ops-1 via", "subject-restored alice by ops-2 via"),
        acts("c"));
  }
}
