package dev.portcullis.pep;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The revocation matrix, library side (docs/security.md, "Enforcement acts on every decision"):
 * however a Remove reaches a PEP — pushed after a policy change, the answer to a request sent again
 * after the PDP came back with another policy, the answer after a fail-over to a PDP that decides
 * differently, the end of an MLS session — the listener hears exactly the decisions that changed;
 * and a cached grant ends on its subject's revocation or its expiry. The proxy's side of the same
 * matrix is {@code proxy.ProxyRevocationTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RevocationTest {
  static final Context CTX = new Context(Context.R_INCOMING, 0);
  static final String ALLOW_BOTH =
      "<rules><rule id=\"ssh\" decision=\"install\"><match subject=\"alice\" service=\"ssh\"/>"
          + "<grant valid-for=\"PT1H\"/></rule>"
          + "<rule id=\"web\" decision=\"install\"><match subject=\"bob\" service=\"web\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule\"/></rules>";
  static final String BOB_ONLY = ALLOW_BOTH.replace("subject=\"alice\"", "subject=\"nobody\"");

  @TempDir Path dir;

  /** A rules PDP on 127.0.0.1:{@code port} (0: a free one) deciding with {@code policy}. */
  PdpServer pdp(String name, int port, String policy) throws Exception {
    Files.writeString(dir.resolve(name + "-rules.xml"), policy);
    Path cfg = dir.resolve(name + ".xml");
    Files.writeString(
        cfg,
        "<pdp><listen address=\"127.0.0.1\" port=\""
            + port
            + "\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\""
            + name
            + "-rules.xml\"/><client-type code=\"0xC0A6\" engine=\"mls\" policy=\"mls.xml\"/>"
            + "<audit file=\""
            + name
            + "-audit.jsonl\"/></pdp>");
    Files.writeString(dir.resolve("mls.xml"), Pdps.MLS);
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  /** The decisions pushed to a PEP's listener, by handle, in the order they came. */
  static final class Heard implements PepListener {
    final Map<String, PepDecision> changed = new ConcurrentHashMap<>();

    @Override
    public void decisionChanged(String handle, PepDecision d) {
      changed.put(handle, d);
    }
  }

  static PepClient pep(List<InetSocketAddress> pdps, int clientType, PepListener l) {
    return PepClient.builder()
        .pdps(pdps)
        .pepId("gw-1")
        .clientType(clientType)
        .listener(l)
        .requestTimeout(Duration.ofSeconds(5))
        .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
  }

  static PepDecision decide(PepClient pep, String handle, String subject, String service)
      throws Exception {
    return pep.request(handle, CTX, AccessRequest.access(subject, service, AccessMode.READ))
        .get(10, TimeUnit.SECONDS);
  }

  /** Alice's ssh and bob's web installed, granted, and a denied request beside them. */
  static void installThree(PepClient pep) throws Exception {
    pep.open().get(10, TimeUnit.SECONDS);
    assertTrue(decide(pep, "alice-ssh", "alice", "ssh").granted());
    assertTrue(decide(pep, "bob-web", "bob", "web").granted());
    assertFalse(decide(pep, "carol-ftp", "carol", "ftp").granted());
  }

  /** Exactly alice's ssh was removed, and nothing else was heard. */
  static void onlyAliceRemoved(Heard heard) {
    await().atMost(Duration.ofSeconds(10)).until(() -> heard.changed.containsKey("alice-ssh"));
    assertFalse(heard.changed.get("alice-ssh").granted(), "alice's ssh is removed");
    assertEquals(List.of("alice-ssh"), List.copyOf(heard.changed.keySet()), "nothing else changed");
  }

  /**
   * An operator revokes alice on the PDP (issue 48): her installed decisions are removed at once,
   * with who did it and why, whatever the policy says; her new requests are refused the same way
   * while bob's are decided as before; once restored, the policy decides her requests again.
   */
  @Test
  void anOperatorsRevocationRemovesASubjectsDecisionsAtOnceUntilRestored() throws Exception {
    Heard heard = new Heard();
    try (PdpServer a = pdp("a", 0, ALLOW_BOTH);
        PepClient pep = pep(List.of(a.address()), AccessRequest.CLIENT_TYPE, heard)) {
      installThree(pep);
      assertTrue(a.revokeSubject("alice", "ops-1", "incident 42"));
      assertFalse(a.revokeSubject("alice", "ops-2", "again"), "revoked once");
      onlyAliceRemoved(heard);
      String why = heard.changed.get("alice-ssh").data().reason();
      assertTrue(why.contains("revoked by ops-1") && why.contains("incident 42"), why);
      PepDecision again = decide(pep, "alice-ssh-2", "alice", "ssh");
      assertFalse(again.granted(), "a new request of hers is refused");
      assertTrue(again.data().reason().contains("revoked by ops-1"), again.data().reason());
      assertTrue(decide(pep, "bob-web-2", "bob", "web").granted(), "bob is decided as before");
      assertEquals(List.of("alice"), a.revokedSubjects().stream().map(r -> r.subject()).toList());
      assertTrue(a.restoreSubject("alice", "ops-2"));
      assertFalse(a.restoreSubject("alice", "ops-2"), "restored once");
      assertTrue(decide(pep, "alice-ssh-3", "alice", "ssh").granted(), "the policy decides again");
    }
    // who did what, in the audit's hash chain
    List<String> acts = new java.util.ArrayList<>();
    for (com.fasterxml.jackson.databind.JsonNode r :
        SecureCopsTest.audit(dir.resolve("a-audit.jsonl"))) {
      String e = r.path("event").asText();
      if (e.startsWith("subject-")) {
        acts.add(e + " " + r.path("subject").asText() + " by " + r.path("by").asText());
      }
    }
    assertEquals(
        List.of("subject-revoked alice by ops-1", "subject-restored alice by ops-2"), acts);
  }

  @Test
  void anUnsolicitedRemoveReachesTheListener() throws Exception {
    Heard heard = new Heard();
    try (PdpServer a = pdp("a", 0, ALLOW_BOTH);
        PepClient pep = pep(List.of(a.address()), AccessRequest.CLIENT_TYPE, heard)) {
      installThree(pep);
      Files.writeString(dir.resolve("a-rules.xml"), BOB_ONLY);
      a.reload(AccessRequest.CLIENT_TYPE);
      onlyAliceRemoved(heard);
    }
  }

  /**
   * The PDP dies, its policy changes while it is away, it comes back: the PEP sends its installed
   * requests again, and the Remove that answers one of them (a solicited DEC with no caller
   * waiting) reaches the listener. It used to update the installed state silently.
   */
  @Test
  void aRemoveAnsweringARequestSentAgainAfterAReconnectReachesTheListener() throws Exception {
    Heard heard = new Heard();
    PdpServer a = pdp("a", 0, ALLOW_BOTH);
    int port = a.address().getPort();
    try (PepClient pep = pep(List.of(a.address()), AccessRequest.CLIENT_TYPE, heard)) {
      installThree(pep);
      a.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> !pep.isOpen());
      try (PdpServer back = pdp("a", port, BOB_ONLY)) {
        assertEquals(port, back.address().getPort(), "the same PDP, back");
        onlyAliceRemoved(heard);
        Map<String, PepDecision> installed = pep.installed().get(5, TimeUnit.SECONDS);
        assertFalse(installed.get("alice-ssh").granted());
        assertTrue(installed.get("bob-web").granted());
      }
    } finally {
      a.close();
    }
  }

  /** A fail-over to another PDP of the PEP's list (a fleet's member) that decides differently. */
  @Test
  void aRemoveFromThePdpAPepFailsOverToReachesTheListener() throws Exception {
    Heard heard = new Heard();
    PdpServer a = pdp("a", 0, ALLOW_BOTH);
    try (PdpServer b = pdp("b", 0, BOB_ONLY);
        PepClient pep = pep(List.of(a.address(), b.address()), AccessRequest.CLIENT_TYPE, heard)) {
      installThree(pep);
      a.close();
      onlyAliceRemoved(heard);
    } finally {
      a.close();
    }
  }

  /** A LOGOUT (the login's request state deleted) removes what the session allowed, only that. */
  @Test
  void aLogoutRemovesExactlyTheAccessItsSessionAllowed() throws Exception {
    Heard heard = new Heard();
    try (PdpServer a = pdp("a", 0, ALLOW_BOTH);
        PepClient pep = pep(List.of(a.address()), 0xC0A6, heard)) {
      pep.open().get(10, TimeUnit.SECONDS);
      assertTrue(
          pep.request("login", CTX, AccessRequest.login("alice", 2, List.of("NATO")))
              .get(10, TimeUnit.SECONDS)
              .granted());
      AccessRequest read = AccessRequest.access("alice", "intel", AccessMode.READ);
      assertTrue(pep.request("read-1", CTX, read).get(10, TimeUnit.SECONDS).granted());
      assertTrue(pep.request("read-2", CTX, read).get(10, TimeUnit.SECONDS).granted());
      assertFalse(
          pep.request("bob-read", CTX, AccessRequest.access("bob", "intel", AccessMode.READ))
              .get(10, TimeUnit.SECONDS)
              .granted());
      pep.delete("login", ReasonCode.TEAR);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> heard.changed.keySet().containsAll(List.of("read-1", "read-2")));
      assertFalse(heard.changed.get("read-1").granted());
      assertFalse(heard.changed.get("read-2").granted());
      assertEquals(2, heard.changed.size(), "only the session's access: " + heard.changed);
    }
  }

  /**
   * A library's cached grants: they expire by the clock, and a revocation ends all of a subject's.
   */
  @Test
  void aCachedGrantEndsOnExpiryAndOnItsSubjectsRevocation() {
    AtomicLong now = new AtomicLong();
    Ticker ticker = now::get;
    Grants grants = new Grants(ticker, 100);
    grants.grant("alice", "ssh", Duration.ofHours(1));
    grants.grant("alice", "web", Duration.ofHours(2));
    grants.grant("bob", "web", Duration.ofHours(2));
    assertTrue(grants.holds("alice", "ssh"));
    assertFalse(grants.holds("alice", "ftp"), "a grant holds only in its scope");
    now.addAndGet(Duration.ofMinutes(61).toNanos());
    assertFalse(grants.holds("alice", "ssh"), "expired after its hour");
    assertTrue(grants.holds("alice", "web"));
    assertEquals(1, grants.revoke("alice"), "alice's last grant");
    assertFalse(grants.holds("alice", "web"), "revoked in every scope");
    assertTrue(grants.holds("bob", "web"), "bob's stays");
    grants.grant("bob", "ssh", Duration.ofHours(2));
    assertTrue(grants.revoke("bob", "web"), "a denial in one scope");
    assertFalse(grants.holds("bob", "web"));
    assertTrue(grants.holds("bob", "ssh"), "ends the grant of that scope only");
    for (int i = 0; i < 1_000; i++) {
      grants.grant("s" + i, "web", Duration.ofHours(1));
    }
    assertTrue(grants.size() <= 100, "bounded: " + grants.size());
  }
}
