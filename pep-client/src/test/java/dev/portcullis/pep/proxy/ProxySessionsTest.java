package dev.portcullis.pep.proxy;

import static dev.portcullis.pep.proxy.PepProxyTest.client;
import static dev.portcullis.pep.proxy.PepProxyTest.closed;
import static dev.portcullis.pep.proxy.PepProxyTest.roundTrip;
import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.pki.DevCertificates;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MLS sessions the proxy carries for certificate subjects, at a PDP alone with the sample
 * multilevel policy (alice cleared UNCLASSIFIED..SECRET with NATO; intel-db SECRET NATO and mail
 * UNCLASSIFIED, both Bell-LaPadula): a listener's level is the session's, a level outside the
 * clearance is refused, a second level is refused or moves the session (and the PDP's re-decision
 * cuts what the new level does not allow), the last connection logs out; all audited.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProxySessionsTest {
  @TempDir Path dir;
  PepProxyTest.Echo echo;
  PdpServer pdp;
  PepProxy proxy;
  AuditLog audit;
  DevCertificates.Pki pki;

  @BeforeEach
  void start() throws Exception {
    echo = new PepProxyTest.Echo();
    pdp = PepProxyTest.mlsPdp(dir, ""); // a PDP alone: the sessions are its own
    pki =
        DevCertificates.ensure(
            dir.resolve("pki"), List.of("127.0.0.1"), List.of("alice", "mallory"));
    String tls =
        "<tls certificate=\""
            + pki.pdp().certificateChain()
            + "\" key=\""
            + pki.pdp().privateKey()
            + "\" trust=\""
            + pki.caCertificate()
            + "\"/>";
    String up = "127.0.0.1:" + echo.address().getPort();
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\">"
            + listener("intel-secret", up, "intel-db", tls, "2", "refuse")
            + listener("intel-top", up, "intel-db", tls, "3", "refuse")
            + listener("mail", up, "mail", tls, "0", "move")
            + "</pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    audit = AuditLog.open(dir.resolve("proxy-audit.jsonl"));
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, audit);
    proxy.ready().get(10, TimeUnit.SECONDS);
    assertTrue(proxy.pep().isOpen());
  }

  static String listener(
      String name, String upstream, String service, String tls, String level, String other) {
    return "<listener name=\""
        + name
        + "\" listen=\"127.0.0.1:0\" upstream=\""
        + upstream
        + "\" service=\""
        + service
        + "\" access=\"read\">"
        + tls
        + "<session level=\""
        + level
        + "\" categories=\"NATO\" on-other-level=\""
        + other
        + "\"/></listener>";
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    audit.close();
    pdp.close();
    echo.close();
  }

  SSLSocket as(String who, int listener) throws Exception {
    InetSocketAddress a = proxy.addresses().get(listener);
    SSLSocket s =
        (SSLSocket) client(pki, who).getSocketFactory().createSocket(a.getAddress(), a.getPort());
    s.setSoTimeout(5_000);
    return s;
  }

  void awaitSessions(int n) throws InterruptedException {
    await().until(() -> proxy.sessions() == n);
    assertEquals(n, proxy.sessions());
  }

  @Test
  void theProxyCarriesEachCertificateSubjectsSessionAtItsListenersLevel() throws Exception {
    try (SSLSocket s = as("alice", 1)) {
      s.startHandshake();
      s.getOutputStream().write('x');
      assertTrue(closed(s), "TOP SECRET is outside alice's clearance: the login is refused");
    }
    awaitSessions(0);

    SSLSocket first = as("alice", 0);
    assertEquals("s1", roundTrip(first, "s1"), "logged in at SECRET NATO: reads intel-db");
    SSLSocket second = as("alice", 0);
    assertEquals("s2", roundTrip(second, "s2"), "the same session");
    awaitSessions(1);

    try (SSLSocket s = as("alice", 1)) {
      s.startHandshake();
      s.getOutputStream().write('x');
      assertTrue(closed(s), "another level, on-other-level=refuse: refused");
    }
    assertEquals("s1 again", roundTrip(first, "s1 again"), "and the session is untouched");

    try (SSLSocket mail = as("alice", 2)) {
      assertEquals("mail", roundTrip(mail, "mail"), "moved to UNCLASSIFIED NATO: reads mail");
      assertTrue(
          closed(first), "no read up from UNCLASSIFIED: the PDP removed it, the proxy cut it");
      assertTrue(closed(second), "both");
    }
    first.close();
    second.close();
    awaitSessions(0); // the last connection's end logged alice out

    try (SSLSocket s = as("mallory", 0)) {
      s.startHandshake();
      s.getOutputStream().write('x');
      assertTrue(closed(s), "no clearance: no session, no access");
    }
    awaitSessions(0);

    proxy.close();
    audit.close();
    Path file = dir.resolve("proxy-audit.jsonl");
    assertTrue(AuditChain.verify(file).intact());
    List<String> sessionEvents = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode r = new ObjectMapper().readTree(line);
      if (r.get("event").asText().equals("proxy-session")) {
        sessionEvents.add(
            r.get("subject").asText()
                + " "
                + r.get("operation").asText()
                + " "
                + r.get("level").asInt()
                + (r.has("decision") ? " " + r.get("decision").asText() : ""));
      }
    }
    assertEquals(
        List.of(
            "alice login 3 remove",
            "alice login 2 install",
            "alice change-level 0 install",
            "alice logout 0",
            "mallory login 2 remove"),
        sessionEvents);
  }

  @Test
  void aSessionNeedsACertificateSubject() throws Exception {
    Files.writeString(
        dir.resolve("bad.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"x\" listen=\"127.0.0.1:0\""
            + " upstream=\"127.0.0.1:1\" service=\"mail\">\n"
            + "<session level=\"0\"/><subject source=\"127.0.0.0/8\" name=\"alice\"/>"
            + "</listener></pep-proxy>");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ProxyConfig.load(dir.resolve("bad.xml")));
    assertTrue(e.getMessage().contains("bad.xml:2"), e.getMessage());
    assertTrue(e.getMessage().contains("<session> needs <tls>"), e.getMessage());
  }
}
