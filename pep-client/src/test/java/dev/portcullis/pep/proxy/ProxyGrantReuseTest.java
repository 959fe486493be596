package dev.portcullis.pep.proxy;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ManualTimebase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code grants="reuse"}: a subject holding a grant with a validity is admitted at once while the
 * PDP is there, without a request each, and the grant's request state stays installed at the PDP
 * after its own connection has ended, so that a policy change still reaches what was admitted on
 * it. The upstream greets first, so a byte relayed to a revoked client would show.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProxyGrantReuseTest {
  @TempDir Path dir;
  private PdpServer pdp;
  private PepProxy proxy;
  private AuditLog audit;
  private ProxyConnectAheadTest.Greeter upstream;
  private final ManualTimebase time = new ManualTimebase(); // the grants' time, moved by hand

  /** A PDP granting alice the echo service for an hour; the proxy's listener as given. */
  private InetSocketAddress start(String grants) throws Exception {
    return start(grants, "");
  }

  /** As {@link #start(String)}, the PDP with {@code limits} (a {@code <limits>} element). */
  private InetSocketAddress start(String grants, String limits) throws Exception {
    upstream = new ProxyConnectAheadTest.Greeter();
    pdp = PepProxyTest.allowingPdp(dir, limits);
    Files.writeString(dir.resolve("policy.xml"), validFor("alice"));
    pdp.reload(0xC0A5);
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\" upstream=\""
            + "127.0.0.1:"
            + upstream.server.getLocalPort()
            + "\" service=\"echo\""
            + (grants == null ? "" : " grants=\"" + grants + "\"")
            + "><subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
    audit = AuditLog.open(dir.resolve("proxy-audit.jsonl"));
    proxy = PepProxyTest.started(dir, audit, time);
    return proxy.addresses().get(0);
  }

  private static String validFor(String subject) {
    return validFor(subject, "PT1H");
  }

  private static String validFor(String subject, String validity) {
    return PepProxyTest.ALLOW.replace(
        "subject=\"alice\" service=\"echo\"/></rule>",
        "subject=\""
            + subject
            + "\" service=\"echo\"/><grant valid-for=\""
            + validity
            + "\"/></rule>");
  }

  @AfterEach
  void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
      audit.close();
      pdp.close();
      upstream.close();
    }
  }

  private int installed() throws Exception {
    return proxy.pep().installed().get(5, TimeUnit.SECONDS).size();
  }

  /** Connects, reads the upstream's greeting through the proxy and echoes a word. */
  private Socket greeted(InetSocketAddress at) throws IOException {
    return greeted(PepProxyTest.connect(at));
  }

  private Socket greeted(Socket s) throws IOException {
    assertEquals("HELLO\n", read(s, 6));
    assertEquals("ping", PepProxyTest.roundTrip(s, "ping"));
    return s;
  }

  private static String read(Socket s, int n) throws IOException {
    return new String(s.getInputStream().readNBytes(n), StandardCharsets.US_ASCII);
  }

  @Test
  void aReusedGrantAdmitsWithoutARequestAndItsStateOutlivesItsConnection() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close(); // asked for: the Install brings the grant
    await().until(() -> proxy.open() == 0);
    assertEquals(1, installed(), "the grant's request state stays at the PDP");
    greeted(at).close(); // admitted on the grant: greeted, echoed
    assertEquals(1, proxy.counters().allowedOnGrant.get());
    greeted(at).close();
    assertEquals(2, proxy.counters().allowedOnGrant.get());
    assertEquals(1, proxy.counters().allowed.get(), "one request for three connections");
    assertEquals(1, installed());
    proxy.close();
    audit.close(); // everything queued is written
    Path file = dir.resolve("proxy-audit.jsonl");
    assertTrue(AuditChain.verify(file).intact());
    List<String> asked = new ArrayList<>();
    List<String> onGrant = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode r = new ObjectMapper().readTree(line);
      if (!r.get("event").asText().equals("proxy-decision")) {
        continue;
      }
      assertEquals("install", r.get("decision").asText());
      if (r.has("grant")) {
        onGrant.add(r.get("grant").asText());
        assertTrue(r.get("handle").asText().startsWith("echo-reused-"), r.toString());
      } else {
        asked.add(r.get("handle").asText());
      }
    }
    assertEquals(1, asked.size(), asked.toString());
    assertEquals(
        List.of(asked.get(0), asked.get(0)),
        onGrant,
        "each reused admission names the request state it stood on");
  }

  /**
   * "Cut alice off now" reaches her reused grants (docs/operate.md): the operator's revocation
   * removes the grant's request state, whose own connection has ended, and what stood on it is cut;
   * she is refused until restored.
   */
  @Test
  void anOperatorsRevocationCutsWhatWasAdmittedOnAReusedGrant() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close();
    await().until(() -> proxy.open() == 0);
    try (Socket onGrant = greeted(at)) {
      assertEquals(1, proxy.counters().allowedOnGrant.get());
      assertTrue(pdp.revokeSubject("alice", "ops-1", "incident 42"));
      assertTrue(PepProxyTest.closed(onGrant), "cut with its grant");
    }
    await().until(() -> installed() == 0); // the grant's request state deleted (DRQ)
    try (Socket s = PepProxyTest.connect(at)) {
      assertTrue(PepProxyTest.closed(s), "asked for again, and refused: she is revoked");
    }
    assertTrue(pdp.restoreSubject("alice", "ops-1"));
    greeted(at).close(); // asked for again, and the policy decides
    assertEquals(1, proxy.counters().allowedOnGrant.get());
    assertEquals(1, proxy.counters().denied.get());
  }

  @Test
  void aPolicyChangeCutsWhatWasAdmittedOnAReusedGrant() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close();
    await().until(() -> proxy.open() == 0);
    try (Socket onGrant = greeted(at)) {
      assertEquals(1, proxy.counters().allowedOnGrant.get());
      Files.writeString(dir.resolve("policy.xml"), validFor("bob")); // alice no longer
      pdp.reload(0xC0A5);
      // the Remove comes for the grant's request state, whose own connection has ended
      assertTrue(PepProxyTest.closed(onGrant), "cut with its grant");
    }
    await().until(() -> installed() == 0); // the grant's request state deleted (DRQ)
    try (Socket s = PepProxyTest.connect(at)) {
      assertTrue(PepProxyTest.closed(s), "asked for again, and denied");
    }
    assertEquals(1, proxy.counters().allowedOnGrant.get());
    assertEquals(1, proxy.counters().denied.get());
  }

  @Test
  void aConnectionThatOutlivesItsGrantIsStillCutByALaterPolicyChange() throws Exception {
    InetSocketAddress at = start("reuse");
    Files.writeString(dir.resolve("policy.xml"), validFor("alice", "PT1S"));
    pdp.reload(0xC0A5);
    greeted(at).close(); // the grant: one second
    await().until(() -> proxy.open() == 0);
    try (Socket onGrant = greeted(at)) {
      assertEquals(1, proxy.counters().allowedOnGrant.get());
      time.advance(Duration.ofSeconds(2)); // its timer runs: the grant admits no more
      assertEquals(1, installed(), "kept: a connection still stands on it");
      Files.writeString(dir.resolve("policy.xml"), validFor("bob"));
      pdp.reload(0xC0A5);
      assertTrue(PepProxyTest.closed(onGrant), "the policy change reaches it");
    }
    await().until(() -> installed() == 0);
  }

  @Test
  void aGrantFromOneAddressAdmitsNothingFromAnother() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close(); // from 127.0.0.1: the grant, an hour
    await().until(() -> proxy.open() == 0);
    // the policy narrows: alice from 127.0.0.1 only; the grant's own decision does not change
    Files.writeString(
        dir.resolve("policy.xml"),
        validFor("alice")
            .replace("service=\"echo\"/>", "service=\"echo\" source=\"127.0.0.1/32\"/>"));
    pdp.reload(0xC0A5);
    greeted(at).close();
    assertEquals(1, proxy.counters().allowedOnGrant.get(), "reused from the address it was for");
    for (int i = 0; i < 3; i++) {
      try (Socket s = connectFrom(at, "127.0.0.4")) {
        assertTrue(PepProxyTest.closed(s), "from 127.0.0.4: asked for, and denied");
      }
    }
    assertEquals(1, proxy.counters().allowedOnGrant.get(), "reused 3 of 3 before");
    assertEquals(3, proxy.counters().denied.get());
  }

  @Test
  void aChangedInstallShortensTheGrantItGave() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close(); // the grant: an hour
    await().until(() -> proxy.open() == 0);
    Files.writeString(dir.resolve("policy.xml"), validFor("alice", "PT2S"));
    pdp.reload(0xC0A5); // the anchor's Install changes: valid for 2 s now
    await().until(() -> installedValidity() == 2L);
    time.advance(Duration.ofSeconds(3));
    greeted(at).close();
    assertEquals(0, proxy.counters().allowedOnGrant.get(), "reused 4.5 s later before");
    assertEquals(2, proxy.counters().allowed.get(), "asked for again");
    // a changed Install without a validity ends the grant at once
    greeted(at).close(); // reused: the new grant is 2 s
    assertEquals(1, proxy.counters().allowedOnGrant.get());
    Files.writeString(dir.resolve("policy.xml"), PepProxyTest.ALLOW);
    pdp.reload(0xC0A5);
    await().until(() -> installedValidity() == null);
    greeted(at).close();
    assertEquals(1, proxy.counters().allowedOnGrant.get(), "no validity: no reuse");
    assertEquals(3, proxy.counters().allowed.get());
  }

  @Test
  void heldGrantsGiveTheirRequestStatesBackWhenThePdpHasNoRoom() throws Exception {
    // three request states at most at the PDP; each address's grant keeps one when it ends
    InetSocketAddress at = start("reuse", "<limits max-handles=\"3\"/>");
    for (int i = 1; i <= 6; i++) {
      greeted(connectFrom(at, "127.0.0." + i)).close();
      await().until(() -> proxy.open() == 0);
    }
    assertEquals(6, proxy.counters().allowed.get(), "every address asked for and allowed");
    assertEquals(0, proxy.counters().denied.get(), "the 4th was refused before (error 4)");
    assertTrue(installed() <= 3, "the oldest idle grants gave their request states back");
    greeted(connectFrom(at, "127.0.0.6")).close();
    assertEquals(1, proxy.counters().allowedOnGrant.get(), "the newest grant is still reused");
  }

  /** The validity of the one installed decision (the grant's), or null without one. */
  private Long installedValidity() throws Exception {
    var all = proxy.pep().installed().get(5, TimeUnit.SECONDS).values();
    return all.stream()
        .filter(d -> d.data() != null && d.data().validForSeconds() != null)
        .map(d -> d.data().validForSeconds())
        .min(Long::compare)
        .orElse(null);
  }

  private static Socket connectFrom(InetSocketAddress at, String from) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(from, 0));
    s.connect(at, 5_000);
    s.setSoTimeout(5_000);
    return s;
  }

  @Test
  void anExpiredGrantIsNotReusedAndItsStateIsDeleted() throws Exception {
    InetSocketAddress at = start("reuse");
    greeted(at).close();
    await().until(() -> proxy.open() == 0);
    time.advance(Duration.ofHours(1));
    Socket s = greeted(at);
    assertEquals(0, proxy.counters().allowedOnGrant.get(), "expired: asked for");
    assertEquals(2, proxy.counters().allowed.get());
    // the expired grant's state is deleted; the new connection's stands behind its new grant
    await().until(() -> installed() == 1);
    s.close();
  }

  @Test
  void withoutReuseEveryConnectionIsAskedForAndItsStateGoesWithIt() throws Exception {
    InetSocketAddress at = start(null); // the default: grants="while-pdp-away"
    greeted(at).close();
    greeted(at).close();
    assertEquals(2, proxy.counters().allowed.get());
    assertEquals(0, proxy.counters().allowedOnGrant.get());
    await().until(() -> proxy.open() == 0 && installed() == 0);
  }

  @Test
  void reuseIsRefusedWithASession() throws Exception {
    Files.writeString(
        dir.resolve("bad.xml"),
        "<pep-proxy pep=\"pep.xml\">\n<listener name=\"x\" listen=\"127.0.0.1:0\""
            + " upstream=\"127.0.0.1:1\" service=\"mail\" grants=\"reuse\">"
            + "<session level=\"0\"/><subject source=\"127.0.0.0/8\" name=\"alice\"/>"
            + "</listener></pep-proxy>");
    Files.writeString(dir.resolve("pep.xml"), "<pep id=\"p\"><pdp address=\"127.0.0.1\"/></pep>");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ProxyConfig.load(dir.resolve("bad.xml")));
    assertTrue(e.getMessage().contains("bad.xml:2"), e.getMessage());
    assertTrue(e.getMessage().contains("grants=\"reuse\" with a <session>"), e.getMessage());
  }
}
