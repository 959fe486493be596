package dev.portcullis.pep.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.support.Cli;
import dev.portcullis.support.CommandRun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rows of {@link Cli.Cause} a PEP user meets, through the real {@code pep-client} command: a
 * PDP that is not running is work not done (1), a proxy whose audit log or port another process
 * holds is a configuration to fix (2); each one line prefixed {@code pep-client:}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CliCausesTest {
  @TempDir Path dir;

  private static String line(CommandRun r, Cli.Cause cause) {
    assertEquals(cause.exitCode, r.exitCode(), r.err());
    String line = r.errLines().strip();
    assertEquals(1, line.lines().count(), "one line: " + r.err());
    assertTrue(line.startsWith("pep-client: "), line);
    return line;
  }

  private static CommandRun pep(String... args) {
    return CommandRun.of("pep-client", new PepMain(), args);
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void aPdpThatIsNotRunningIsOne() throws Exception {
    int port = freePort();
    String line =
        line(
            pep("request", "--pdp", "127.0.0.1:" + port, "--subject", "alice", "--service", "ssh"),
            Cli.Cause.NOT_DONE);
    assertTrue(line.contains("cannot connect to 127.0.0.1:" + port), line);
  }

  /** The host firewall's mistakes: its file's, one line, exit 2; nothing set up in the kernel. */
  @Test
  void aFirewallConfigurationMistakeIsItsFileLineAndAttribute() throws Exception {
    Files.writeString(dir.resolve("pep.xml"), "<pep id=\"host-1\"/>");
    Path f = dir.resolve("firewall.xml");
    Files.writeString(
        f,
        "<firewall pep=\"pep.xml\">\n<service name=\"ssh\" address=\"[::1]:22\"/>\n"
            + "<subject source=\"10.0.0.0/8\" name=\"alice\"/></firewall>");
    String l = line(pep("firewall", "-c", f.toString()), Cli.Cause.CONFIGURATION);
    assertTrue(l.contains("firewall.xml:2:") && l.contains("address"), l);
    String none =
        line(pep("firewall", "-c", dir.resolve("none.xml").toString()), Cli.Cause.CONFIGURATION);
    assertTrue(none.contains("none.xml"), none);
  }

  private Path proxy(int listen) throws Exception {
    Files.writeString(
        dir.resolve("pep.xml"),
        "<pep id=\"proxy-1\"><pdp address=\"127.0.0.1\" port=\"" + freePort() + "\"/></pep>");
    Path f = dir.resolve("pep-proxy.xml");
    Files.writeString(
        f,
        "<pep-proxy pep=\"pep.xml\"><audit file=\"audit.jsonl\"/>"
            + "<listener name=\"demo\" listen=\"127.0.0.1:"
            + listen
            + "\" upstream=\"127.0.0.1:9\" service=\"demo\">"
            + "<subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
    return f;
  }

  @Test
  void aProxyWhoseAuditLogIsInUseIsTwo() throws Exception {
    Path cfg = proxy(freePort());
    try (AuditLog owner = AuditLog.open(dir.resolve("audit.jsonl"))) {
      owner.record("held", "by", "this test");
      String line = line(pep("proxy", "--config", cfg.toString()), Cli.Cause.FILE_IN_USE);
      assertTrue(line.contains("in use by another writer"), line);
    }
  }

  @Test
  void aProxyWhosePortIsInUseIsTwoAndNamesIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path cfg = proxy(taken.getLocalPort());
      String line = line(pep("proxy", "--config", cfg.toString()), Cli.Cause.CANNOT_BIND);
      assertTrue(
          line.contains(
              "cannot listen on 127.0.0.1:" + taken.getLocalPort() + " for listener demo"),
          line);
    }
  }

  /** No command is a usage mistake naming the commands, never the whole usage (exit 2). */
  @Test
  void noCommandIsOneLineNamingTheCommands() {
    String line = line(pep(), Cli.Cause.USAGE_MISTAKE);
    assertTrue(line.contains("a command is needed: request, simulate"), line);
    assertTrue(line.endsWith("see pep-client --help"), line);
  }

  /** A tunnel agent has no default configuration: the samples are a gateway's and a user's. */
  @Test
  void aTunnelAgentNeedsItsConfigurationNamed() {
    String line = line(pep("tunnel-agent"), Cli.Cause.USAGE_MISTAKE);
    assertTrue(line.contains("--config"), line);
  }

  /** A mistyped option is one line: what is wrong, the option meant, where the usage is. */
  @Test
  void aMistypedOptionIsOneLineWithTheOptionMeant() {
    String line =
        line(pep("request", "--subjet", "alice", "--service", "ssh"), Cli.Cause.USAGE_MISTAKE);
    assertTrue(line.contains("--subjet"), line);
    assertTrue(line.contains("did you mean --subject"), line);
    assertTrue(line.endsWith("see pep-client request --help"), line);
  }

  /** A value not in the accepted form: the option and the form, one line, no stack trace. */
  @Test
  void aBadValueIsOneLineNamingTheOption() {
    for (String[] bad :
        new String[][] {
          {"--pdp", "127.0.0.1"}, {"--operation", "FOO"}, {"--dport", "abc"},
        }) {
      String line =
          line(pep("request", "--subject", "alice", bad[0], bad[1]), Cli.Cause.USAGE_MISTAKE);
      assertTrue(line.contains(bad[0]) || line.contains(bad[1]), line);
      assertTrue(!line.contains("Exception"), line);
    }
  }

  /** A simulation whose PDP is not there says so in words, not an exception's class name. */
  @Test
  void aSimulationWithoutItsPdpSaysWhy() throws Exception {
    int port = freePort();
    String line =
        line(pep("simulate", "--pdp", "127.0.0.1:" + port, "--sessions", "1"), Cli.Cause.NOT_DONE);
    assertTrue(line.toLowerCase(java.util.Locale.ROOT).contains("connection refused"), line);
    assertTrue(!line.contains("Exception"), line);
  }
}
