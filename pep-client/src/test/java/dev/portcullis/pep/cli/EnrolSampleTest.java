package dev.portcullis.pep.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.cli.PdpMain;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's enrolment walk-through with the sample pair, config/pdp-enrol.xml and
 * config/pep-enrol.xml (copied, beside a target directory of their own): issue, enrol, ask.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EnrolSampleTest {
  @TempDir Path dir;

  @Test
  void theSamplePairEnrolsAPepThatThenGetsItsDecision() throws Exception {
    Path config = Files.createDirectories(dir.resolve("config"));
    Files.createDirectories(dir.resolve("target"));
    for (String f :
        new String[] {
          "pdp-enrol.xml", "pep-enrol.xml", "policy-rules.xml", "crypto-providers.xml"
        }) {
      Files.copy(Path.of("..", "config", f), config.resolve(f));
    }
    Path pdpXml = config.resolve("pdp-enrol.xml");
    try (PdpServer pdp =
        PdpServer.start(
            PdpConfig.load(pdpXml).withListen(InetAddress.getLoopbackAddress(), 0), 1)) {
      Path pepXml = config.resolve("pep-enrol.xml");
      Files.writeString(
          pepXml,
          Files.readString(pepXml)
              .replace("port=\"3288\"", "port=\"" + pdp.address().getPort() + "\""));
      // as the README does it: --out writes the credential, owner-only
      Path credential = dir.resolve("gw-7.credential");
      EnrolCliTest.run(
          new PdpMain(),
          0,
          "issue-credential",
          "--config",
          pdpXml.toString(),
          "--pep",
          "gw-7",
          "--valid-for",
          "24h",
          "--out",
          credential.toString());
      assertTrue(Files.readString(credential).matches("otc-[0-9a-f]{16}\\.[A-Za-z0-9_-]+\n"));
      if (java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        assertEquals(
            "rw-------",
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(credential)));
      }
      String enrolled =
          EnrolCliTest.run(
              new PepMain(),
              0,
              "enrol",
              "--config",
              pepXml.toString(),
              "--credential-file",
              credential.toString());
      assertTrue(enrolled.contains("enrolled gw-7"), enrolled);
      assertTrue(Files.exists(dir.resolve("target").resolve("enrolled").resolve("gw-7.crt")));
      String decision =
          EnrolCliTest.run(
              new PepMain(),
              0,
              "request",
              "--config",
              pepXml.toString(),
              "--subject",
              "alice",
              "--dst",
              "10.1.2.3",
              "--dport",
              "22",
              "--protocol",
              "6",
              "--service",
              "ssh");
      assertTrue(decision.startsWith("GRANTED  rule=ops-ssh"), decision);
    }
  }
}
