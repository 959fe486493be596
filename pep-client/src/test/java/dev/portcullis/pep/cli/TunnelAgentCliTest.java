package dev.portcullis.pep.cli;

import static dev.portcullis.pep.cli.EnrolCliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pep.tunnel.TunnelAgentConfig;
import dev.portcullis.support.pki.DevCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pep-client tunnel-agent}: what an operator's mistakes look like (one line naming file and
 * line, exit 2), a charon that is not there (exit 1, said so), and the sample configurations.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TunnelAgentCliTest {
  @TempDir Path dir;

  Path agentXml(String clientType, String tunnels) throws Exception {
    var pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("alice"));
    Path f = dir.resolve("agent.xml");
    Files.writeString(
        f,
        "<pep id=\"alice\" client-type=\""
            + clientType
            + "\">\n<pdp address=\"127.0.0.1\" port=\"1\"/>\n"
            + "<security><tls certificate=\""
            + pki.peps().get("alice").certificateChain()
            + "\" key=\""
            + pki.peps().get("alice").privateKey()
            + "\" trust=\""
            + pki.caCertificate()
            + "\"/></security>\n"
            + tunnels
            + "</pep>\n");
    return f;
  }

  static final String TUNNEL =
      "<tunnel subject=\"alice\" gateway=\"gw-1\" address=\"192.0.2.1\" inner=\"10.1.0.1/32\""
          + " objective=\"%s\" ike-id=\"alice@vpn.lab\"/>";

  String agent(int expected, Path config) {
    return run(new PepMain(), expected, "tunnel-agent", "--config", config.toString());
  }

  @Test
  void mistakesAreOneLineAtTheirPlace() throws Exception {
    String noTunnels = agent(2, agentXml("0xC0A8", ""));
    assertTrue(noTunnels.contains("agent.xml:1") && noTunnels.contains("<tunnels"), noTunnels);
    String type =
        agent(2, agentXml("0xC0A5", "<tunnels>" + TUNNEL.formatted("integrity") + "</tunnels>"));
    assertTrue(type.contains("client-type=\"0xC0A8\""), type);
    String ahEsp =
        agent(2, agentXml("0xC0A8", "<tunnels>\n" + TUNNEL.formatted("ah+esp") + "\n</tunnels>\n"));
    assertTrue(ahEsp.contains("agent.xml:5") && ahEsp.contains("one IPsec protocol"), ahEsp);
    String name =
        agent(
            2,
            agentXml(
                "0xC0A8",
                "<tunnels>\n<gateway name=\"gw-2\" address=\"gw.lab\" ike-id=\"x\"/></tunnels>"));
    assertTrue(name.contains("agent.xml:5") && name.contains("gateway gw-2"), name);
    for (String out : List.of(noTunnels, type, ahEsp, name)) {
      assertEquals(1, out.strip().lines().count(), out);
      assertTrue(!out.contains("Exception"), out);
    }
  }

  @Test
  void aCredentialFileIsReadForItsIdAndItsMistakesNamed() throws Exception {
    String withFile =
        "<tunnels>\n"
            + TUNNEL.formatted("integrity").replace("/>", " credential-file=\"alice.credential\"/>")
            + "\n</tunnels>\n";
    String missing = agent(2, agentXml("0xC0A8", withFile));
    assertTrue(
        missing.contains("agent.xml:5")
            && missing.contains("alice.credential cannot be read")
            && missing.contains("issue-credential"),
        missing);
    Files.writeString(dir.resolve("alice.credential"), "not-a-credential.s3cr3t-value\n");
    String wrong = agent(2, agentXml("0xC0A8", withFile));
    assertTrue(wrong.contains("does not hold a credential"), wrong);
    assertTrue(!wrong.contains("s3cr3t"), "never the file's content: " + wrong);
    Files.writeString(dir.resolve("alice.credential"), "otc-0123456789abcdef.s3cr3t\n");
    TunnelAgentConfig c = TunnelAgentConfig.load(agentXml("0xC0A8", withFile));
    assertEquals("otc-0123456789abcdef", c.tunnels().get(0).credentialId(), "the id only");
    c.pep().close();
    String both =
        agent(
            2,
            agentXml(
                "0xC0A8",
                withFile.replace("credential-file=", "credential=\"otc-1\" credential-file=")));
    assertTrue(both.contains("name the credential once"), both);
  }

  @Test
  void aTunnelWithoutAnInnerPrefixAsksTheGatewayForAnAddress() throws Exception {
    TunnelAgentConfig c =
        TunnelAgentConfig.load(
            agentXml(
                "0xC0A8",
                "<tunnels>"
                    + TUNNEL.formatted("integrity").replace(" inner=\"10.1.0.1/32\"", "")
                    + "</tunnels>"));
    assertEquals(null, c.tunnels().get(0).innerPrefix(), "from the rule's pool");
    c.pep().close();
    String bad =
        agent(
            2,
            agentXml(
                "0xC0A8",
                "<tunnels>\n"
                    + TUNNEL.formatted("integrity").replace("10.1.0.1/32", "10.1.0.1/24")
                    + "\n</tunnels>\n"));
    assertTrue(bad.contains("agent.xml:5") && bad.contains("host bits set"), bad);
  }

  @Test
  void aCharonThatIsNotThereIsSaidSo() throws Exception {
    Path vici = dir.resolve("no-charon.vici");
    String out =
        agent(
            1,
            agentXml(
                "0xC0A8",
                "<tunnels vici=\"" + vici + "\">" + TUNNEL.formatted("integrity") + "</tunnels>"));
    assertTrue(out.contains(vici.toString()) && out.contains("is strongSwan's charon"), out);
  }

  @Test
  void theSamplesLoad() throws Exception {
    Path config = Path.of("..", "config");
    PdpConfig pdp = PdpConfig.load(config.resolve("pdp-tunnels.xml"));
    assertEquals(
        config.resolve("policy-tunnels.xml").toAbsolutePath().normalize(),
        pdp.security().tunnels().toAbsolutePath().normalize());
    for (String sample : List.of("tunnel-gateway.xml", "tunnel-client.xml")) {
      // Their certificates exist once enrolled (the walk-through); the rest is checked here.
      String text = Files.readString(config.resolve(sample));
      Path copy = dir.resolve(sample);
      var pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("gw-1", "alice"));
      String id = sample.contains("gateway") ? "gw-1" : "alice";
      Files.writeString(
          copy,
          text.replace(
                  "crypto-providers.xml",
                  config.resolve("crypto-providers.xml").toAbsolutePath().toString())
              .replace(
                  "../target/enrolled/" + id + ".crt",
                  pki.peps().get(id).certificateChain().toString())
              .replace(
                  "../target/enrolled/" + id + ".key", pki.peps().get(id).privateKey().toString())
              .replace("../target/dev-pki/ca.crt", pki.caCertificate().toString())
              .replace("../target/alice.credential", "alice.credential"));
      Files.writeString(dir.resolve("alice.credential"), "otc-0123456789abcdef.c2VjcmV0\n");
      TunnelAgentConfig c = TunnelAgentConfig.load(copy);
      assertEquals(id, c.pep().pepId());
      if (id.equals("gw-1")) {
        assertEquals("gw-1", c.gateway().gateway());
      } else {
        assertNull(c.gateway());
        assertEquals("alice", c.tunnels().get(0).subject());
        assertEquals("otc-0123456789abcdef", c.tunnels().get(0).credentialId(), "the id only");
      }
      c.pep().close();
    }
  }
}
