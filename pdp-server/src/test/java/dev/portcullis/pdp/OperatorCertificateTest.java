package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.support.Cli;
import dev.portcullis.support.CommandRun;
import dev.portcullis.support.SampleConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walk-through of docs/operate.md from a fresh checkout: {@code operator-certificate ops-1}
 * makes the development certificates, {@code config/pdp-control.xml} loads with them, and {@code
 * ctl} with the files the command printed is let in.
 */
@Timeout(60)
class OperatorCertificateTest {
  @TempDir Path dir;

  static CommandRun run(String... args) {
    return CommandRun.of("pdp-server", new PdpMain(), args);
  }

  @Test
  void theSampleControlConfigurationRunsWithTheCertificatesTheCommandMakes() throws Exception {
    // the samples in dir/config, so that their ../target lands in dir/target, not the checkout's
    Path config = SampleConfigs.copyInto(dir);
    Path pki = dir.resolve("target").resolve("dev-pki");
    Files.createDirectories(pki.getParent());
    CommandRun made = run("operator-certificate", "--dev-pki", pki.toString(), "ops-1");
    assertEquals(0, made.exitCode(), made.err());
    List<String> flags = new ArrayList<>();
    for (String line : made.out().lines().toList()) {
      if (line.startsWith("  --")) {
        flags.addAll(List.of(line.strip().split(" ", 2)));
      }
    }
    assertEquals(6, flags.size(), made.out());
    Path key = pki.resolve("pep-ops-1.key");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));

    Path sample = config.resolve("pdp-control.xml");
    assertTrue(PdpConfig.load(sample).control().operators().containsKey("ops-1"));
    // the sample itself, on free ports
    Files.writeString(
        sample,
        Files.readString(sample)
            .replace("port=\"3288\"", "port=\"0\"")
            .replace("127.0.0.1:9464", "127.0.0.1:0"));
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(sample), 1)) {
      List<String> ctl = new ArrayList<>(List.of("ctl", "status", "--endpoint"));
      ctl.add("https://localhost:" + pdp.metricsAddress().getPort());
      ctl.addAll(flags);
      CommandRun status = run(ctl.toArray(String[]::new));
      assertEquals(0, status.exitCode(), status.err());
      assertTrue(status.out().startsWith("pdp 127.0.0.1:"), status.out());
    }
  }

  @Test
  void aNameThatCannotBeACertificatesIsAUsageMistake() {
    CommandRun bad = run("operator-certificate", "--dev-pki", dir.toString(), "no such/name");
    assertEquals(Cli.USAGE, bad.exitCode(), bad.err());
    assertTrue(bad.err().startsWith("pdp-server: no such/name: "), bad.err());
  }
}
