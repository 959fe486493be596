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
import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.support.CommandRun;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.pki.DevCertificates;
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
            + "-audit.jsonl\"/>"
            + "<metrics listen=\"127.0.0.1:0\"><tls certificate=\""
            + pki().pdp().certificateChain()
            + "\" key=\""
            + pki().pdp().privateKey()
            + "\" client-ca=\""
            + pki().caCertificate()
            + "\"/><operator name=\"ops-1\" may=\"view revoke\"/></metrics></pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  private DevCertificates.Pki pki;

  DevCertificates.Pki pki() throws Exception {
    if (pki == null) {
      pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("ops-1"));
    }
    return pki;
  }

  /** {@code pdp-server ctl ...} as ops-1 at {@code pdp}'s control interface. */
  CommandRun ctl(PdpServer pdp, String... command) throws Exception {
    List<String> args = new ArrayList<>(List.of("ctl"));
    args.addAll(List.of(command));
    args.addAll(
        List.of(
            "--endpoint",
            "https://127.0.0.1:" + pdp.metricsAddress().getPort(),
            "--cert",
            pki().peps().get("ops-1").certificateChain().toString(),
            "--key",
            pki().peps().get("ops-1").privateKey().toString(),
            "--ca",
            pki().caCertificate().toString()));
    return CommandRun.of("pdp-server", new PdpMain(), args.toArray(String[]::new));
  }

  /**
   * "Who is connected" on a fleet, from one command: each member publishes where its control
   * interface is, and {@code ctl ... --fleet} asks every member there, each line naming its member.
   * The revocation there is the fleet's.
   */
  @Test
  void theCommandLineAsksEveryMemberOfTheFleet() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "a");
        PdpServer b = pdp(ns, "b");
        BlockingPep atA = new BlockingPep(a.address(), AccessRequest.CLIENT_TYPE, "gw-a");
        BlockingPep atB = new BlockingPep(b.address(), AccessRequest.CLIENT_TYPE, "gw-b")) {
      assertTrue(atA.ask("h-alice", access("alice")));
      assertTrue(atB.ask("h-alice", access("alice")));
      String memberA = "127.0.0.1_" + a.address().getPort();
      String memberB = "127.0.0.1_" + b.address().getPort();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  ctl(a, "fleet").out().lines().filter(l -> !l.endsWith("control=-")).count() == 2);
      CommandRun fleet = ctl(a, "fleet");
      assertTrue(
          fleet.out().contains(memberB + " 127.0.0.1:" + b.address().getPort() + " connections=")
              && fleet.out().contains("control=127.0.0.1:" + b.metricsAddress().getPort()),
          fleet.out());

      CommandRun peps = ctl(a, "peps", "--subject", "alice", "--fleet");
      assertEquals(0, peps.exitCode(), peps.err());
      List<String> lines = peps.out().lines().toList();
      assertEquals(4, lines.size(), peps.out());
      // the members in the order of their ids, each PEP's line and its decision's below it
      int at = lines.get(0).startsWith(memberA) ? 0 : 2;
      assertTrue(lines.get(at).startsWith(memberA + " gw-a 127.0.0.1:"), peps.out());
      assertEquals(
          memberA + "   0xC0A5 682d616c696365 alice access install rule=ssh", lines.get(at + 1));
      assertTrue(lines.get(2 - at).startsWith(memberB + " gw-b 127.0.0.1:"), peps.out());

      assertEquals("alice revoked\n", ctl(a, "revoke", "alice").out());
      assertFalse(BlockingPep.installs(atB.pushed(10_000)), "the other member's PEP hears it");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ctl(a, "revoked", "--fleet").out().lines().count() == 2);
      CommandRun json = ctl(a, "revoked", "--fleet", "--json");
      JsonNode both = new ObjectMapper().readTree(json.out());
      assertEquals("ops-1", both.get(memberB).get("revoked").get(0).get("by").asText(), json.out());
    }
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
      // revoked again, over the restored entry the store keeps
      assertTrue(a.revokeSubject("alice", "ops-3", "again"));
      await().atMost(Duration.ofSeconds(10)).until(() -> !b.revokedSubjects().isEmpty());
      assertEquals("ops-3", b.revokedSubjects().get(0).by());
    }
    assertEquals(
        List.of(
            "subject-revoked alice by ops-1",
            "subject-restored alice by ops-2 via",
            "subject-revoked alice by ops-3"),
        acts("a"));
    assertEquals(
        List.of(
            "subject-revoked alice by ops-1 via",
            "subject-restored alice by ops-2",
            "subject-revoked alice by ops-3 via"),
        acts("b"));
    assertEquals(
        List.of("subject-revoked alice by ops-1 via", "subject-restored alice by ops-2 via"),
        acts("c"));
  }
}
