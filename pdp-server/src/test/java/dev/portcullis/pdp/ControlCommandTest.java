package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.support.Cli;
import dev.portcullis.support.CommandRun;
import dev.portcullis.support.pki.DevCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pdp-server ctl} against a running PDP (docs/operate.md): one line per row, {@code --json}
 * as the interface answered, and the exit codes of every command: 0 done, 1 refused or not done, 2
 * a usage mistake, each failure one line naming what was wrong.
 */
@Timeout(60)
class ControlCommandTest {
  @TempDir Path dir;
  private DevCertificates.Pki pki;
  private PdpServer pdp;

  @BeforeEach
  void start() throws Exception {
    pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("ops-1", "viewer"));
    pdp =
        ControlApiTest.withOperators(
            dir,
            pki,
            "<operator name=\"ops-1\" may=\"view revoke close reload\"/><operator name=\"viewer\" may=\"view\"/>");
  }

  @AfterEach
  void stop() {
    if (pdp != null) {
      pdp.close();
    }
  }

  /** {@code pdp-server ctl COMMAND... } as {@code who}, at this PDP's endpoint. */
  CommandRun ctl(String who, String... command) {
    List<String> args = new ArrayList<>(List.of("ctl"));
    args.addAll(List.of(command));
    args.addAll(
        List.of(
            "--endpoint",
            "https://localhost:" + pdp.metricsAddress().getPort(),
            "--cert",
            pki.peps().get(who).certificateChain().toString(),
            "--key",
            pki.peps().get(who).privateKey().toString(),
            "--ca",
            pki.caCertificate().toString()));
    return CommandRun.of("pdp-server", new PdpMain(), args.toArray(String[]::new));
  }

  static void failsWith(CommandRun r, int exit, String naming) {
    assertEquals(exit, r.exitCode(), r.err());
    String line = r.errLines().strip();
    assertEquals(1, line.lines().count(), "one line: " + r.err());
    assertTrue(line.startsWith("pdp-server: ") && line.contains(naming), line);
  }

  @Test
  void anOperatorSeesWhoIsConnectedAndWhatTheyHoldOneLineEach() throws Exception {
    try (BlockingPep pep = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1")) {
      assertTrue(pep.ask("h-alice", AccessRequest.of(AccessOperation.ACCESS, "alice")));
      CommandRun status = ctl("viewer", "status");
      assertEquals(0, status.exitCode(), status.err());
      assertTrue(
          status.out().startsWith("pdp 127.0.0.1:" + pdp.address().getPort() + " serving"),
          status.out());
      assertTrue(status.out().contains(" connections=1 decisions=1 "), status.out());

      CommandRun peps = ctl("viewer", "peps", "--subject", "alice");
      assertEquals(0, peps.exitCode(), peps.err());
      List<String> lines = peps.out().lines().toList();
      assertEquals(2, lines.size(), peps.out());
      assertTrue(
          lines
              .get(0)
              .matches("gw-1 127\\.0\\.0\\.1:\\d+ types=0xC0A5 handles=1 tls=- since=\\S+Z"),
          lines.get(0));
      assertEquals("  0xC0A5 682d616c696365 alice access install rule=ssh", lines.get(1));

      CommandRun json = ctl("viewer", "peps", "--json");
      assertEquals(0, json.exitCode(), json.err());
      assertEquals(
          "gw-1", new ObjectMapper().readTree(json.out()).get("peps").get(0).get("pep").asText());
    }
  }

  @Test
  void anOperatorRevokesAndRestoresFromTheCommandLine() throws Exception {
    CommandRun revoke = ctl("ops-1", "revoke", "alice", "--reason", "incident 42");
    assertEquals(0, revoke.exitCode(), revoke.err());
    assertEquals("alice revoked\n", revoke.out());
    assertEquals("ops-1", pdp.revokedSubjects().get(0).by());
    CommandRun again = ctl("ops-1", "revoke", "alice");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().startsWith("alice not revoked again: revoked already"), again.out());
    CommandRun listed = ctl("viewer", "revoked");
    assertTrue(listed.out().matches("alice by=ops-1 at=\\S+Z reason=incident 42\n"), listed.out());
    assertEquals("alice restored\n", ctl("ops-1", "restore", "alice").out());
    assertTrue(pdp.revokedSubjects().isEmpty());
    assertEquals("", ctl("viewer", "revoked").out(), "nobody revoked: no line");
  }

  @Test
  void refusalsAndMistakesAreOneLineWithTheirExitCode() throws Exception {
    failsWith(
        ctl("viewer", "revoke", "bob"), Cli.FAILED, "operator viewer may not revoke (may view)");
    assertTrue(pdp.revokedSubjects().isEmpty());
    failsWith(ctl("ops-1", "close", "gw-9"), Cli.FAILED, "no PEP gw-9 is connected");
    failsWith(ctl("ops-1", "end-tunnel", "t-9"), Cli.FAILED, "no tunnel t-9 is granted");
    failsWith(ctl("ops-1", "drain"), Cli.FAILED, "operator ops-1 may not drain");
    failsWith(ctl("viewer", "peps", "--fleet"), Cli.FAILED, "is a PDP alone");
    failsWith(ctl("ops-1", "revoke", "a".repeat(300)), Cli.USAGE, "expected: subject=");
    failsWith(
        CommandRun.of(
            "pdp-server", new PdpMain(), "ctl", "status", "--endpoint", "https://localhost:1"),
        Cli.USAGE,
        "--cert is needed (or PORTCULLIS_CTL_CERT)");
    CommandRun plain =
        CommandRun.of(
            "pdp-server", new PdpMain(), "ctl", "status", "--endpoint", "http://localhost:9464");
    failsWith(plain, Cli.USAGE, "the control interface is HTTPS only");
    pdp.close();
    failsWith(ctl("viewer", "status"), Cli.FAILED, "did not answer");
    String down = ctl("viewer", "status").err();
    assertFalse(down.contains("Exception") || down.contains("\tat "), down);
  }
}
