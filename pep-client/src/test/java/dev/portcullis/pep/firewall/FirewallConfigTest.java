package dev.portcullis.pep.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.SampleConfigs;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** firewall.xml: the sample, and each mistake named with its file, line and attribute. */
class FirewallConfigTest {
  @TempDir Path dir;

  @Test
  void theSampleLoads() throws Exception {
    FirewallConfig c = FirewallConfig.load(SampleConfigs.copyInto(dir).resolve("firewall.xml"));
    assertEquals(3, c.queue());
    assertEquals("host", c.table());
    assertEquals(Duration.ofMinutes(5), c.idle());
    assertFalse(c.closeOnPdpLoss());
    assertEquals(1, c.services().size());
    HostFirewall.Service s = c.services().get(0);
    assertEquals("demo", s.name());
    assertEquals(8081, s.port());
    assertEquals(AccessMode.READ_WRITE, s.access());
    assertEquals(Flow.TCP, s.protocol());
    assertEquals(HostFirewall.DEFAULT_MARK, c.mark());
    assertNull(c.metrics(), "no metrics unless asked");
    assertEquals("alice", c.subject(InetAddress.getByName("127.0.0.9")));
    assertNull(c.subject(InetAddress.getByName("192.0.2.1")));
    assertEquals("host", c.settings().tag());
    assertTrue(c.audit().endsWith(Path.of("target", "firewall-audit.jsonl")), c.audit().toString());
  }

  String refused(String body) throws Exception {
    Files.writeString(dir.resolve("pep.xml"), "<pep id=\"host-1\"/>");
    Path f = dir.resolve("firewall.xml");
    Files.writeString(f, "<firewall pep=\"pep.xml\"" + body + "</firewall>");
    String m = assertThrows(ConfigException.class, () -> FirewallConfig.load(f)).getMessage();
    assertTrue(m.startsWith(f.toString() + ":1:"), m);
    return m;
  }

  @Test
  void mistakesAreNamed() throws Exception {
    String subject = "<subject source=\"10.0.0.0/8\" name=\"alice\"/>";
    assertTrue(refused("><service name=\"s\" address=\"[::1]:22\"/>" + subject).contains("IPv4"));
    assertTrue(
        refused(
                "><service name=\"s\" address=\"10.0.0.1:22\"/>"
                    + "<service name=\"t\" address=\"10.0.0.1:22\"/>"
                    + subject)
            .contains("listed twice"));
    assertTrue(
        refused(" table=\"no-dash\"><service name=\"s\" address=\"10.0.0.1:22\"/>" + subject)
            .contains("letters or digits"));
    assertTrue(
        refused(" idle=\"100ms\"><service name=\"s\" address=\"10.0.0.1:22\"/>" + subject)
            .contains("from 1 s"));
    assertTrue(
        refused(
                "><service name=\"s\" address=\"10.0.0.1:22\"/>"
                    + "<subject source=\"10.0.0.0/99\" name=\"alice\"/>")
            .contains("source"));
    assertTrue(
        refused(" mark=\"0x3\"><service name=\"s\" address=\"10.0.0.1:22\"/>" + subject)
            .contains("exactly one bit"));
    assertTrue(
        refused(" mark=\"3\"><service name=\"s\" address=\"10.0.0.1:22\"/>" + subject)
            .contains("mark"));
    assertTrue(
        refused("><service name=\"s\" address=\"10.0.0.1:22\" protocol=\"sctp\"/>" + subject)
            .contains("protocol"));
  }

  @Test
  void aSubjectWithALevelHasASessionAndOnlyOne() throws Exception {
    Files.writeString(dir.resolve("pep.xml"), "<pep id=\"host-1\"/>");
    Path f = dir.resolve("firewall.xml");
    String service = "<service name=\"intel-db\" address=\"10.0.0.1:5432\"/>";
    Files.writeString(
        f,
        "<firewall pep=\"pep.xml\">"
            + service
            + "<subject source=\"10.1.0.0/16\" name=\"alice\" level=\"2\" categories=\"NATO\"/>"
            + "<subject source=\"10.2.0.0/16\" name=\"alice\" level=\"2\" categories=\"NATO\"/>"
            + "<subject source=\"10.3.0.0/16\" name=\"bob\"/></firewall>");
    FirewallConfig c = FirewallConfig.load(f);
    assertEquals(
        java.util.Map.of("alice", new HostFirewall.SessionLevel(2, java.util.List.of("NATO"))),
        c.settings().sessions());
    assertTrue(
        refused(
                ">"
                    + service
                    + "<subject source=\"10.1.0.0/16\" name=\"alice\" level=\"2\"/>"
                    + "<subject source=\"10.2.0.0/16\" name=\"alice\" level=\"1\"/>")
            .contains("one session per subject"));
    assertTrue(
        refused(">" + service + "<subject source=\"10.1.0.0/16\" name=\"a\" categories=\"X\"/>")
            .contains("without a level"));
  }

  @Test
  void aPortMayBeUnderPolicyForTcpAndUdpAlike() throws Exception {
    Files.writeString(dir.resolve("pep.xml"), "<pep id=\"host-1\"/>");
    Path f = dir.resolve("firewall.xml");
    Files.writeString(
        f,
        "<firewall pep=\"pep.xml\" mark=\"0x80\"><metrics/><service name=\"dns\" address=\"10.0.0.1:53\""
            + " protocol=\"udp\"/><service name=\"dns\" address=\"10.0.0.1:53\"/>"
            + "<subject source=\"10.0.0.0/8\" name=\"alice\"/></firewall>");
    FirewallConfig c = FirewallConfig.load(f);
    assertEquals(Flow.UDP, c.services().get(0).protocol());
    assertEquals(Flow.TCP, c.services().get(1).protocol());
    assertEquals(0x80, c.settings().mark());
    assertEquals(9466, c.metrics().getPort(), "the metrics endpoint's default port");
  }
}
