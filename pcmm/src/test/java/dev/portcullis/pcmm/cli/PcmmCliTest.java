package dev.portcullis.pcmm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The mistakes an operator makes starting {@code pcmm-server}, through the real command: one line
 * each, prefixed {@code pcmm-server:}, exit 2, and nothing left behind (no audit log begun).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PcmmCliTest {
  @TempDir Path dir;

  private static String line(CommandRun r, Cli.Cause cause) {
    assertEquals(cause.exitCode, r.exitCode(), r.err());
    String line = r.errLines().strip();
    assertEquals(1, line.lines().count(), "one line: " + r.err());
    assertTrue(line.startsWith("pcmm-server: "), line);
    return line;
  }

  private static CommandRun pcmm(String... args) {
    return CommandRun.of("pcmm-server", new PcmmMain(), args);
  }

  @Test
  void aConfigurationMistakeIsItsFileLineAndAttribute() throws Exception {
    Path f = dir.resolve("pcmm.xml");
    Files.writeString(
        f,
        "<pcmm-server>\n<limits/>\n<cmts name=\"a\" address=\"cmts.example\"/>\n</pcmm-server>\n");
    String l = line(pcmm("-c", f.toString()), Cli.Cause.CONFIGURATION);
    assertTrue(l.contains("pcmm.xml:3:") && l.contains("address"), l);
    String missing = line(pcmm("-c", dir.resolve("none.xml").toString()), Cli.Cause.CONFIGURATION);
    assertTrue(missing.contains("none.xml") && missing.contains("not found"), missing);
  }

  @Test
  void anEndpointPortInUseIsNamedAndLeavesNoAuditBehind() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path f = dir.resolve("pcmm.xml");
      Files.writeString(
          f,
          "<pcmm-server><limits/><audit file=\"audit.jsonl\"/>"
              + "<http listen=\"127.0.0.1:"
              + taken.getLocalPort()
              + "\"/><cmts name=\"a\" address=\"127.0.0.1:1\"/></pcmm-server>");
      String l = line(pcmm("-c", f.toString()), Cli.Cause.CANNOT_BIND);
      assertTrue(
          l.contains(
              "cannot listen on 127.0.0.1:"
                  + taken.getLocalPort()
                  + " for the gate API and metrics (<http listen>): the port is in use"),
          l);
      // checked before anything is made (issue 47): not even an empty log or its lock file
      assertFalse(Files.exists(dir.resolve("audit.jsonl")), "an audit log made, never served");
      assertFalse(Files.exists(dir.resolve("audit.jsonl.lock")), "a lock file left behind");
    }
  }

  @Test
  void theSimulatorRefusesAListenAddressThatIsNotOne() {
    String l =
        line(pcmm("cmts-simulator", "--listen", "cmts.example:3918"), Cli.Cause.USAGE_MISTAKE);
    assertTrue(l.contains("--listen cmts.example:3918"), l);
  }
}
