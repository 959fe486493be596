package dev.portcullis.pdp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.Cli;
import dev.portcullis.support.CommandRun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each row of {@link Cli.Cause} met by the real {@code pdp-server} command: the exit code the table
 * gives, and one line prefixed {@code pdp-server:} naming what was wrong.
 */
class CliCausesTest {
  @TempDir Path dir;

  private CommandRun run(String... args) {
    return CommandRun.of("pdp-server", new PdpMain(), args);
  }

  private Path config(String name, int port, String audit) throws Exception {
    Files.writeString(dir.resolve("r.xml"), "<rules><default decision=\"remove\"/></rules>");
    Path f = dir.resolve(name);
    Files.writeString(
        f,
        "<pdp><listen address=\"127.0.0.1\" port=\""
            + port
            + "\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"r.xml\"/>"
            + (audit == null ? "" : "<audit file=\"" + audit + "\"/>")
            + "</pdp>");
    return f;
  }

  private static void oneLine(CommandRun r, Cli.Cause cause, String naming) {
    assertEquals(cause.exitCode, r.exitCode(), r.err());
    String line = r.errLines().strip();
    assertEquals(1, line.lines().count(), "one line: " + r.err());
    assertTrue(line.startsWith("pdp-server: "), line);
    assertTrue(line.contains(naming), line);
  }

  @Test
  void aConfigurationThatDoesNotLoadIsTwo() throws Exception {
    Path bad = dir.resolve("bad.xml");
    Files.writeString(bad, "<pdp>\n<listen port=\"x\"/></pdp>");
    oneLine(run("--config", bad.toString()), Cli.Cause.CONFIGURATION, bad + ":2:");
  }

  @Test
  void aMissingConfigurationFileIsTwo() {
    Path none = dir.resolve("none.xml");
    oneLine(run("--config", none.toString()), Cli.Cause.CONFIGURATION, "none.xml");
  }

  @Test
  void aPortInUseIsTwoAndNamesTheAddress() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path c = config("pdp.xml", taken.getLocalPort(), "audit.jsonl");
      // with what a start would make first: a development PKI, an enrolment store
      Files.writeString(
          c,
          Files.readString(c)
              .replace(
                  "<audit ",
                  "<security><tls dev-pki=\"pki\" client-auth=\"optional\"/><protection"
                      + " level=\"confidentiality\"/><enrolment store=\"otc\"/></security><audit "));
      oneLine(
          run("--config", c.toString()),
          Cli.Cause.CANNOT_BIND,
          "cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": the port is in use");
    }
    // a failed start leaves nothing: no audit log it made, no lock file, no PKI, no store
    assertFalse(Files.exists(dir.resolve("audit.jsonl")), "an empty audit log left behind");
    assertFalse(Files.exists(dir.resolve("audit.jsonl.lock")), "its lock file left behind");
    assertFalse(Files.exists(dir.resolve("pki")), "a development PKI left behind");
    assertFalse(Files.exists(dir.resolve("otc")), "an enrolment store left behind");
  }

  /** A second PDP on the first one's port and audit log names the port, not the log's lock. */
  @Test
  void aSecondPdpOnTheSamePortSaysThePort() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (PdpServer running =
        PdpServer.start(PdpConfig.load(config("a.xml", port, "audit.jsonl")), 1)) {
      assertTrue(running.isReady());
      oneLine(
          run("--config", config("b.xml", port, "audit.jsonl").toString()),
          Cli.Cause.CANNOT_BIND,
          "cannot listen on 127.0.0.1:" + port + ": the port is in use");
    }
  }

  @Test
  void aPortOutOfRangeIsRefusedBeforeAnythingIsLoaded() throws Exception {
    Path c = config("pdp.xml", 0, "audit.jsonl");
    CommandRun r = run("--config", c.toString(), "--port", "99999");
    oneLine(r, Cli.Cause.USAGE_MISTAKE, "--port 99999 (expected: 0 to 65535)");
    assertFalse(r.err().contains("PDP stopped"), "nothing was started: " + r.err());
    assertFalse(Files.exists(dir.resolve("audit.jsonl")), "nothing was opened");
  }

  @Test
  void anAuditLogInUseIsTwo() throws Exception {
    try (PdpServer running =
        PdpServer.start(PdpConfig.load(config("a.xml", 0, "audit.jsonl")), 1)) {
      assertTrue(running.isReady());
      oneLine(
          run("--config", config("b.xml", 0, "audit.jsonl").toString()),
          Cli.Cause.FILE_IN_USE,
          "in use by another writer");
    }
  }

  @Test
  void aBindAddressThatDoesNotResolveIsTwo() throws Exception {
    Path c = config("pdp.xml", 0, null);
    oneLine(
        run("--config", c.toString(), "--bind", "no-such-host.invalid"),
        Cli.Cause.UNKNOWN_HOST,
        "no-such-host.invalid");
  }

  @Test
  void anUnknownOptionIsTwo() {
    CommandRun r = run("--confg", "x.xml");
    assertEquals(Cli.Cause.USAGE_MISTAKE.exitCode, r.exitCode(), r.err());
  }

  @Test
  void aBadValueIsTwo() throws Exception {
    Path c = config("pdp.xml", 0, null);
    oneLine(
        run("issue-credential", "--config", c.toString(), "--pep", "gw-1", "--valid-for", "0s"),
        Cli.Cause.USAGE_MISTAKE,
        "--valid-for");
  }

  /** A credential file that cannot be written is refused before a credential is issued. */
  @Test
  void aCredentialFileInNoDirectoryIsTwoAndIssuesNothing() throws Exception {
    Path c = config("pdp.xml", 0, null);
    Files.writeString(
        c,
        Files.readString(c)
            .replace(
                "</pdp>",
                "<security><tls dev-pki=\"pki\" client-auth=\"optional\"/><protection"
                    + " level=\"confidentiality\"/><enrolment store=\"otc\"/></security></pdp>"));
    Path out = dir.resolve("no-such-dir").resolve("gw-1.credential");
    oneLine(
        run("issue-credential", "--config", c.toString(), "--pep", "gw-1", "--out", out.toString()),
        Cli.Cause.USAGE_MISTAKE,
        "--out " + out + ": no directory");
    assertFalse(Files.exists(dir.resolve("otc")), "nothing issued, no store made");
  }

  @Test
  void aFailedCheckIsOne() throws Exception {
    Path log = dir.resolve("audit.jsonl");
    Files.writeString(log, "{\"not\":\"a chain\"}\n");
    CommandRun r = run("verify-audit", log.toString());
    assertEquals(Cli.Cause.NOT_DONE.exitCode, r.exitCode(), r.err() + r.out());
    assertTrue(r.out().contains("BROKEN"), r.out());
  }
}
