package dev.portcullis.pdp.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.rules.RulesEngine;
import dev.portcullis.support.ConfigException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesEngineTest {
  @TempDir Path dir;

  RulesEngine load(String body) throws Exception {
    Path f = dir.resolve("rules.xml");
    Files.writeString(
        f, "<rules>\n" + body + "\n<default decision=\"remove\" reason=\"none\"/>\n</rules>");
    return RulesEngine.load(f);
  }

  static PolicyRequest req(String pep, int rType, AccessRequest a) {
    return new PolicyRequest(pep, 0xC0A5, rType, 0, a);
  }

  static AccessRequest access(
      String subject,
      String src,
      String dst,
      Integer dport,
      Integer proto,
      Integer level,
      List<String> cats)
      throws Exception {
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        level,
        cats,
        src == null ? null : InetAddress.getByName(src),
        40000,
        dst == null ? null : InetAddress.getByName(dst),
        dport,
        proto,
        "svc",
        AccessMode.READ,
        null,
        null);
  }

  String rule(PolicyDecision d) {
    return d.data().ruleId();
  }

  @Test
  void firstMatchWinsAndTheDefaultCatchesTheRest() throws Exception {
    RulesEngine e =
        load(
            "<rule id=\"a\" decision=\"install\"><match subject=\"alice\"/></rule>"
                + "<rule id=\"b\" decision=\"remove\"><match subject=\"al*\"/></rule>");
    assertEquals(
        "a", rule(e.decide(req("p", 1, access("alice", null, null, null, null, null, List.of())))));
    assertEquals(
        "b",
        rule(e.decide(req("p", 1, access("albert", null, null, null, null, null, List.of())))));
    PolicyDecision d =
        e.decide(req("p", 1, access("bob", null, null, null, null, null, List.of())));
    assertEquals("default", rule(d));
    assertFalse(d.install());
    assertEquals("none", d.data().reason());
  }

  @Test
  void addressesPortsProtocolsLevelsAndCategories() throws Exception {
    RulesEngine e =
        load(
            "<rule id=\"r\" decision=\"install\"><match source=\"10.0.0.0/8 2001:db8::/32\""
                + " destination=\"192.168.1.0/25\" destination-port=\"22 8000-8080\" protocol=\"tcp 17\""
                + " min-level=\"2\" max-level=\"3\" categories=\"A B\"/><grant level=\"2\" valid-for=\"PT2M\" categories=\"A\"/></rule>");
    List<String> ab = List.of("A", "B", "C");
    PolicyDecision yes =
        e.decide(req("p", 1, access("x", "10.9.9.9", "192.168.1.127", 8080, 6, 2, ab)));
    assertTrue(yes.install());
    assertEquals(2, yes.data().grantedLevel());
    assertEquals(120L, yes.data().validForSeconds());
    assertEquals(List.of("A"), yes.data().categories());
    assertTrue(
        e.decide(req("p", 1, access("x", "2001:db8::5", "192.168.1.1", 22, 17, 3, ab))).install());
    assertFalse(
        e.decide(req("p", 1, access("x", "11.0.0.1", "192.168.1.1", 22, 6, 2, ab))).install(),
        "source");
    assertFalse(
        e.decide(req("p", 1, access("x", "10.0.0.1", "192.168.1.128", 22, 6, 2, ab))).install(),
        "/25");
    assertFalse(
        e.decide(req("p", 1, access("x", "10.0.0.1", "192.168.1.1", 8081, 6, 2, ab))).install(),
        "port");
    assertFalse(
        e.decide(req("p", 1, access("x", "10.0.0.1", "192.168.1.1", 22, 1, 2, ab))).install(),
        "icmp");
    assertFalse(
        e.decide(req("p", 1, access("x", "10.0.0.1", "192.168.1.1", 22, 6, 4, ab))).install(),
        "level");
    assertFalse(
        e.decide(req("p", 1, access("x", "10.0.0.1", "192.168.1.1", 22, 6, 2, List.of("A"))))
            .install(),
        "categories");
    assertFalse(
        e.decide(req("p", 1, access("x", null, "192.168.1.1", 22, 6, 2, ab))).install(),
        "no source given");
  }

  @Test
  void pepGlobsClientTypesAndContext() throws Exception {
    RulesEngine e =
        load(
            "<rule id=\"r\" decision=\"install\"><match pep=\"gw-?? edge-*\" client-type=\"0xC0A5\" r-type=\"0x1 0x8\" operation=\"ACCESS LOGIN\"/></rule>");
    AccessRequest a = access("x", null, null, null, null, null, List.of());
    assertTrue(e.decide(req("gw-01", 1, a)).install());
    assertTrue(e.decide(req("edge-paris-3", 8, a)).install());
    assertFalse(e.decide(req("gw-001", 1, a)).install());
    assertFalse(e.decide(req("gw-01", 2, a)).install(), "R-Type 2 not listed");
    assertFalse(e.decide(new PolicyRequest("gw-01", 0xC0A6, 1, 0, a)).install(), "client type");
  }

  @Test
  void mistakesAreReportedWithFileLineElementAndAttribute() throws Exception {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<rule id=\"r\" decision=\"install\"><match destination=\"10.0.0.0/33\"/></rule>"));
    assertTrue(e.getMessage().contains("rules.xml:2:"), e.getMessage());
    assertEquals("match", e.element());
    assertEquals("destination", e.attribute());
    assertEquals(
        "protocol",
        assertThrows(
                ConfigException.class,
                () -> load("<rule id=\"r\" decision=\"install\"><match protocol=\"tcpp\"/></rule>"))
            .attribute());
    assertEquals(
        "destination-port",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<rule id=\"r\" decision=\"install\"><match destination-port=\"90-80\"/></rule>"))
            .attribute());
    assertEquals(
        "destination",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<rule id=\"r\" decision=\"install\"><match destination=\"example.com\"/></rule>"))
            .attribute());
    assertEquals(
        "id",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<rule id=\"r\" decision=\"install\"/><rule id=\"r\" decision=\"remove\"/>"))
            .attribute());
    ConfigException noDefault =
        assertThrows(
            ConfigException.class,
            () -> {
              Path f = dir.resolve("nodefault.xml");
              Files.writeString(f, "<rules><rule id=\"r\" decision=\"install\"/></rules>");
              RulesEngine.load(f);
            });
    assertTrue(noDefault.getMessage().contains("default"), noDefault.getMessage());
    assertEquals(
        "decision",
        assertThrows(ConfigException.class, () -> load("<rule id=\"r\" decision=\"grant\"/>"))
            .attribute());
  }
}
