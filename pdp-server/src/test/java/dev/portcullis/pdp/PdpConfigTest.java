package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.pdp.connection.PdpSecurity;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.Durations;
import dev.portcullis.support.HostPort;
import io.netty.handler.ssl.ClientAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PdpConfigTest {
  @TempDir Path dir;

  PdpConfig load(String xml) throws Exception {
    Path f = dir.resolve("pdp.xml");
    Files.writeString(f, xml);
    for (String policy : new String[] {"r", "r.xml"}) { // the policies these configs name
      if (!Files.exists(dir.resolve(policy))) {
        Files.writeString(dir.resolve(policy), "<rules/>");
      }
    }
    return PdpConfig.load(f);
  }

  private ConfigException reject(String xml) {
    return assertThrows(ConfigException.class, () -> load(xml));
  }

  /**
   * Defaults are written once, in pdp.xsd: a file that leaves every optional element out reads as
   * one that has them all, empty, and both read the values the schema gives (a default kept in Java
   * as well would show here the day the two differ).
   */
  @Test
  void everyDefaultIsTheSchemas() throws Exception {
    ConfigSchema xsd = ConfigSchema.load(PdpConfig.class, "/dev/portcullis/pdp/pdp.xsd");
    PdpConfig absent = load("<pdp>" + CT + "</pdp>");
    PdpConfig empty =
        load("<pdp><shutdown/><listen/><timers/><limits/>" + CT + "<stats/><metrics/></pdp>");
    for (PdpConfig c : new PdpConfig[] {absent, empty}) {
      Map<String, String> listen = xsd.defaults("pdp/listen");
      assertEquals(listen.get("address"), c.address().getHostAddress());
      assertEquals(Integer.parseInt(listen.get("port")), c.port());
      Map<String, String> timers = xsd.defaults("pdp/timers");
      assertEquals(Durations.parse(timers.get("keepalive")), c.keepAlive());
      assertEquals(Durations.parse(timers.get("accounting")), c.accounting());
      assertEquals(Durations.parse(timers.get("handshake")), c.handshake());
      Map<String, String> limits = xsd.defaults("pdp/limits");
      assertEquals(Integer.parseInt(limits.get("max-message-size")), c.maxMessageSize());
      assertEquals(Integer.parseInt(limits.get("max-handles")), c.maxHandles());
      assertEquals(
          Integer.parseInt(limits.get("max-messages-per-second")), c.maxMessagesPerSecond());
      assertEquals(Integer.parseInt(limits.get("max-connections")), c.maxConnections());
      assertEquals(Integer.parseInt(limits.get("max-pending-decisions")), c.maxPendingDecisions());
      assertEquals(Durations.parse(xsd.defaults("pdp/shutdown").get("drain")), c.drainTime());
      assertEquals(Durations.parse(xsd.defaults("pdp/stats").get("interval")), c.statsInterval());
      Map<String, String> ct = xsd.defaults("pdp/client-type");
      PdpConfig.ClientTypeConfig t = c.clientTypes().get(1);
      assertEquals(Durations.parse(ct.get("decision-timeout")), t.decisionTimeout());
      assertEquals(Boolean.parseBoolean(ct.get("watch")), t.watch());
    }
    assertNull(absent.metrics(), "no <metrics>: no endpoint");
    assertEquals(
        xsd.defaults("pdp/metrics").get("listen"),
        HostPort.of(empty.metrics()),
        "<metrics/>: the schema's address");
    assertEquals(PdpConfig.DEFAULT_DRAIN, absent.drainTime());
    assertEquals(PdpConfig.DEFAULT_DECISION_TIMEOUT, absent.clientTypes().get(1).decisionTimeout());
  }

  /** Files a config names are checked where they are named: file, line and attribute. */
  @Test
  void missingOrNonPemFilesNameTheConfigLine() throws Exception {
    ConfigException e =
        reject("<pdp>\n<client-type code=\"1\" engine=\"rules\" policy=\"missing.xml\"/></pdp>");
    assertEquals(2, e.line());
    assertEquals("policy", e.attribute());
    assertTrue(e.getMessage().startsWith(dir.resolve("pdp.xml") + ":2:"), e.getMessage());
    assertTrue(e.getMessage().contains("missing.xml does not exist"), e.getMessage());
    Files.writeString(dir.resolve("cert.pem"), "not a certificate");
    Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    String tls =
        "<pdp>"
            + CT
            + "<security>\n<tls certificate=\"cert.pem\" key=\"nokey.pem\""
            + " trust=\"ca.pem\"/></security></pdp>";
    e = reject(tls);
    assertEquals(2, e.line());
    assertEquals("certificate", e.attribute());
    assertTrue(e.getMessage().contains("is not PEM"), e.getMessage());
    Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n");
    e = reject(tls);
    assertEquals("key", e.attribute());
    assertTrue(e.getMessage().contains("nokey.pem does not exist"), e.getMessage());
  }

  @Test
  void theSampleConfigurationLoads() throws Exception {
    PdpConfig c = PdpConfig.load(Path.of("..", "config", "pdp.xml"));
    assertEquals(3288, c.port());
    assertEquals(Duration.ofSeconds(30), c.keepAlive());
    assertEquals(2, c.clientTypes().size());
    assertTrue(c.clientTypes().get(0xC0A5).policy().endsWith("policy-rules.xml"));
    assertTrue(c.redirects().get(0).applies("legacy-7", 0xC0A5));
  }

  @Test
  void defaultsApply() throws Exception {
    PdpConfig c =
        load("<pdp><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"r.xml\"/></pdp>");
    assertEquals("127.0.0.1", c.address().getHostAddress());
    assertEquals(3288, c.port());
    assertEquals(Duration.ofSeconds(10), c.handshake());
    assertEquals(65536, c.maxHandles());
    assertNull(c.audit());
    assertEquals(
        dir.resolve("r.xml").toAbsolutePath(),
        c.clientTypes().get(0xC0A5).policy().toAbsolutePath());
  }

  @Test
  void decisionTimeoutAndDrainTimes() throws Exception {
    PdpConfig c = load("<pdp><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>");
    assertEquals(PdpConfig.DEFAULT_DECISION_TIMEOUT, c.clientTypes().get(1).decisionTimeout());
    assertEquals(Duration.ofSeconds(10), c.drainTime());
    c =
        load(
            "<pdp><shutdown drain=\"30s\"/>"
                + "<client-type code=\"1\" engine=\"rules\" policy=\"r\""
                + " decision-timeout=\"250ms\"/></pdp>");
    assertEquals(Duration.ofMillis(250), c.clientTypes().get(1).decisionTimeout());
    assertEquals(Duration.ofSeconds(30), c.drainTime());
    c = load("<pdp><fleet/><shutdown drain=\"PT20S\"/>" + CT + "</pdp>");
    assertEquals(Duration.ofSeconds(20), c.drainTime(), "a fleet drains for <shutdown drain>");
    c = load("<pdp><fleet drain=\"5s\"/><shutdown drain=\"PT20S\"/>" + CT + "</pdp>");
    assertEquals(Duration.ofSeconds(5), c.drainTime(), "unless <fleet drain> says otherwise");
    ConfigException e =
        reject(
            "<pdp>\n<client-type code=\"1\" engine=\"rules\" policy=\"r\" decision-timeout=\"soon\"/></pdp>");
    assertEquals(2, e.line());
    assertEquals("decision-timeout", e.attribute());
    e = reject("<pdp>" + CT.replace("/>", " decision-timeout=\"0s\"/>") + "</pdp>");
    assertTrue(e.getMessage().contains("decision-timeout: PT0S (expected: from"), e.getMessage());
    e = reject("<pdp><shutdown drain=\"2d\"/>" + CT + "</pdp>");
    assertEquals("drain", e.attribute());
  }

  @Test
  void mistakesNameTheirPlace() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<pdp>\n<listen port=\"70000\"/>\n<client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"));
    assertEquals(2, e.line());
    assertEquals("listen", e.element());
    assertEquals("port", e.attribute());
    assertEquals(
        "keepalive",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><timers keepalive=\"PT70000S\"/><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"))
            .attribute());
    assertEquals(
        "address",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><listen address=\"localhost\"/><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"))
            .attribute());
    assertEquals(
        "code",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><client-type code=\"1\" engine=\"rules\" policy=\"r\"/><client-type code=\"0x1\" engine=\"mls\" policy=\"r\"/></pdp>"))
            .attribute());
    assertTrue(
        assertThrows(ConfigException.class, () -> load("<pdp/>"))
            .getMessage()
            .contains("client-type"));
  }

  @Test
  void theCryptoTableIsNamedAndCheckedWhereItIsNamed() throws Exception {
    ConfigException e =
        reject(
            "<pdp>\n<crypto config=\"nowhere.xml\"/>\n"
                + "<client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>");
    assertEquals(2, e.line());
    assertEquals("config", e.attribute());
    assertTrue(e.getMessage().contains("nowhere.xml"), e.getMessage());
    assertEquals(
        Path.of("..", "config", "crypto-providers.xml").toAbsolutePath().normalize(),
        PdpConfig.load(Path.of("..", "config", "pdp.xml")).crypto().toAbsolutePath().normalize());
    assertEquals(
        null, load("<pdp><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>").crypto());
  }

  /** An unknown engine is refused at load, at its line (it used to name the file only). */
  @Test
  void anUnknownEngineIsRefusedAtItsLine() {
    ConfigException e =
        reject(
            "<pdp><listen port=\"0\"/>\n<client-type code=\"1\" engine=\"oracle\" policy=\"r.xml\"/></pdp>");
    assertEquals(2, e.line());
    assertEquals("engine", e.attribute());
    assertTrue(
        e.getMessage().contains("unknown engine 'oracle' (expected: one of [")
            && e.getMessage().contains("rules"),
        e.getMessage());
  }

  /**
   * An audit log whose directory cannot be made is a configuration error at its line, found before
   * anything is created (it was a raw FileSystemException at start, exit 1).
   */
  @Test
  void anAuditLogWhoseDirectoryCannotBeMadeIsRefusedAtItsLine() throws Exception {
    Files.writeString(dir.resolve("a-file"), "x");
    ConfigException e = reject("<pdp>" + CT + "\n<audit file=\"a-file/logs/audit.jsonl\"/></pdp>");
    assertEquals(2, e.line());
    assertEquals("file", e.attribute());
    assertTrue(e.getMessage().contains("cannot be created"), e.getMessage());
    assertTrue(e.getMessage().contains("is a file, not a directory"), e.getMessage());
    assertTrue(Files.isRegularFile(dir.resolve("a-file")), "nothing changed");
    e = reject("<pdp>" + CT + "<audit file=\".\"/></pdp>");
    assertTrue(e.getMessage().contains("is a directory, not a file"), e.getMessage());
    assertEquals(
        dir.resolve("new/dir/audit.jsonl"),
        load("<pdp>" + CT + "<audit file=\"new/dir/audit.jsonl\"/></pdp>").audit(),
        "a directory that can be made is made at start");
    assertTrue(Files.notExists(dir.resolve("new")), "not by the check");
  }

  @Test
  void theTlsSampleConfigurationLoads() throws Exception {
    PdpConfig c = PdpConfig.load(Path.of("..", "config", "pdp-tls.xml"));
    PdpSecurity s = c.security();
    assertEquals(TlsEngine.OPENSSL, s.tls().engine());
    assertEquals(ClientAuth.REQUIRE, s.clientAuth());
    assertEquals(ProtectionLevel.CONFIDENTIALITY, s.levelFor("gw-1"));
    assertEquals(ProtectionLevel.INTEGRITY_AND_CONFIDENTIALITY, s.levelFor("lab-7"));
    assertEquals(1, s.keys().size());
  }

  static final String CT = "<client-type code=\"1\" engine=\"rules\" policy=\"r\"/>";

  @Test
  void securityMistakesNameTheirPlace() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<pdp>"
                        + CT
                        + "\n<security>\n<protection level=\"confidentiality\"/></security></pdp>"));
    assertEquals(3, e.line());
    assertTrue(e.getMessage().contains("needs TLS"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () -> load("<pdp>" + CT + "<security><tls engine=\"gnutls\"/></security></pdp>"));
    assertEquals("engine", e.attribute());
    e =
        assertThrows(
            ConfigException.class,
            () -> load("<pdp>" + CT + "<security><tls protocols=\"TLSv1.1\"/></security></pdp>"));
    assertTrue(e.getMessage().contains("older versions are not offered"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<pdp>"
                        + CT
                        + "<security><integrity><key id=\"1\" algorithm=\"HMAC-MD5-96\" secret-file=\"k\"/></integrity></security></pdp>"));
    assertEquals("legacy", e.attribute());
    e =
        assertThrows(
            ConfigException.class,
            () -> load("<pdp>" + CT + "<security><tls certificate=\"a.crt\"/></security></pdp>"));
    assertTrue(e.getMessage().contains("name both or neither"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () ->
                load("<pdp>" + CT + "<security><tls/><enrolment store=\"otc\"/></security></pdp>"));
    assertTrue(e.getMessage().contains("client-auth=\"optional\""), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () -> load("<pdp>" + CT + "<security><enrolment store=\"otc\"/></security></pdp>"));
    assertTrue(e.getMessage().contains("over TLS only"), e.getMessage());
  }
}
