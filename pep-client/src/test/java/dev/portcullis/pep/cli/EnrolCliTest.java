package dev.portcullis.pep.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.support.Cli;
import dev.portcullis.support.pki.DevCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The operator's and the PEP's commands: issue a credential, enrol with it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EnrolCliTest {
  @TempDir Path dir;

  static String run(Object command, int expected, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Cli.of("test", command); // as the commands run: durations, exit codes
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int rc = cl.execute(args);
    assertEquals(expected, rc, out + "\n" + err);
    return out + err.toString();
  }

  @Test
  void issueThenEnrol() throws Exception {
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Path pdpXml = dir.resolve("pdp.xml");
    Files.writeString(
        pdpXml,
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<security><tls dev-pki=\"pki\" client-auth=\"optional\"/>"
            + "<protection level=\"confidentiality\"/><enrolment store=\"otc\"/></security></pdp>");
    String issued =
        run(new PdpMain(), 0, "issue-credential", "-c", pdpXml.toString(), "--pep", "gw-9");
    // stdout is the credential alone: "issue-credential ... > FILE" makes a credential file
    StringWriter alone = new StringWriter();
    CommandLine issue = Cli.of("pdp-server", new PdpMain());
    issue.setOut(new PrintWriter(alone));
    issue.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, issue.execute("issue-credential", "-c", pdpXml.toString(), "--pep", "gw-8"));
    assertTrue(alone.toString().matches("otc-[0-9a-f]{16}\\.[A-Za-z0-9_-]+\\R"), alone.toString());
    // "issue-credential ... > FILE 2>&1": the credential and what issue-credential said around it
    Path credential = dir.resolve("credential.txt");
    Files.writeString(credential, issued);
    assertEquals(
        1, issued.lines().filter(l -> l.matches("otc-[0-9a-f]{16}\\.[A-Za-z0-9_-]+")).count());
    assertTrue(AuditChain.verify(dir.resolve("otc").resolve("credentials.jsonl")).intact());
    try (PdpServer s = PdpServer.start(PdpConfig.load(pdpXml), 1)) {
      Path ca = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of()).caCertificate();
      Path pepXml = dir.resolve("pep.xml");
      Files.writeString(
          pepXml,
          "<pep id=\"gw-9\"><pdp address=\"127.0.0.1\" port=\""
              + s.address().getPort()
              + "\"/><security><tls certificate=\"gw-9.crt\" key=\"gw-9.key\" trust=\""
              + ca
              + "\"/></security></pep>");
      String[] enrol = {
        "enrol", "--config", pepXml.toString(), "--credential-file", credential.toString()
      };
      String enrolled = run(new PepMain(), 0, enrol);
      assertTrue(enrolled.contains("enrolled gw-9"), enrolled);
      assertTrue(Files.exists(dir.resolve("gw-9.crt")));
      // The same credential a second time: refused, with the reason.
      String again = run(new PepMain(), 1, enrol);
      assertTrue(again.contains("used already"), again);
    }
  }

  /** A file with no credential, or with two, is not guessed at: one line, exit 2, no secret. */
  @Test
  void aCredentialFileWithoutOneLineOfTheFormIsAUsageMistake() throws Exception {
    Path none = dir.resolve("none.credential");
    Files.writeString(none, "credential for PEP gw-9, valid until 2026-11-29\n");
    String said =
        run(new PepMain(), 2, "enrol", "--config", "pep.xml", "--credential-file", none.toString());
    assertTrue(said.contains("no line is a credential"), said);
    Path two = dir.resolve("two.credential");
    String a = "otc-0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    String b = "otc-fedcba9876543210.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
    Files.writeString(two, a + "\n\n" + b + "\n");
    said =
        run(new PepMain(), 2, "enrol", "--config", "pep.xml", "--credential-file", two.toString());
    assertTrue(said.contains("lines [1, 3] are all credentials"), said);
    assertTrue(!said.contains("AAAA") && !said.contains("BBBB"), "no secret said: " + said);
  }
}
