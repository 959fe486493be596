package dev.portcullis.crypto.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CryptoMainTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = CryptoMain.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void noCommandIsOneLineNamingTheCommands() {
    assertEquals(2, run(), "a usage mistake");
    String e = err.toString().strip();
    assertTrue(e.startsWith("portcullis-crypto: a command is needed: status"), e);
    assertFalse(e.contains("\n"), "one line, never the whole usage: " + e);
    assertEquals("", out.toString(), "nothing on stdout");
  }

  @Test
  void statusPrintsTheTableForTheSampleConfiguration() {
    assertEquals(0, run("status", "--config", "../config/crypto-providers.xml"), err.toString());
    String s = out.toString();
    assertTrue(s.contains("crypto provider table, generation 1"), s);
    assertTrue(s.contains("HmacSHA256"), s);
    assertTrue(s.contains("PortcullisNative  MISSING"), s);
    assertTrue(s.contains("CHOSEN"), s);
  }

  @Test
  void allProvidersRunsTheMatrix() {
    assertEquals(
        0,
        run("status", "--config", "../config/crypto-providers.xml", "--all-providers"),
        out + "\n" + err);
    assertTrue(out.toString().contains("every provider x every algorithm"), out.toString());
    assertFalse(out.toString().contains("FAIL"), out.toString());
  }

  @Test
  void aBrokenConfigurationGivesOneLineAndExitTwo(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("bad.xml");
    Files.writeString(f, "<crypto-providers>\n<default><provider/></default></crypto-providers>");
    assertEquals(CryptoMain.EXIT_CONFIG, run("status", "--config", f.toString()));
    String e = err.toString().strip();
    assertTrue(e.startsWith("portcullis-crypto: " + f + ":2:"), e);
    assertTrue(e.contains("element <provider>"), e);
    assertFalse(e.contains("\n"), "one line: " + e);
    assertFalse(e.contains("Exception"), "no stack trace for a user mistake: " + e);
  }

  @Test
  void aMissingConfigurationFileSaysSo() {
    assertEquals(CryptoMain.EXIT_CONFIG, run("status", "--config", "no-such.xml"));
    assertEquals("portcullis-crypto: no-such.xml: file not found", err.toString().strip());
  }

  @Test
  void firstUseRejectsSillyRunCounts() {
    assertEquals(CryptoMain.EXIT_CONFIG, run("first-use", "--runs", "0"));
    assertTrue(err.toString().contains("--runs: 0 (expected: 1 to 100)"), err.toString());
  }
}
