package dev.portcullis.pdp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The pdp-server command as an operator runs it: start, SIGHUP reload, SIGTERM stop. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PdpMainTest {
  @TempDir Path dir;

  private static String next(BlockingQueue<String> lines, String containing)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<String> seen = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l != null) {
        seen.add(l);
        if (l.contains(containing)) {
          return l;
        }
      }
    }
    throw new AssertionError("no line containing '" + containing + "' in " + seen);
  }

  private static Process launch(Path config) throws IOException {
    return launch(config, List.of());
  }

  /** The PDP's process, run by {@code before} (e.g. a shell that ignores a signal first). */
  private static Process launch(Path config, List<String> before) throws IOException {
    List<String> command = new ArrayList<>(before);
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            PdpMain.class.getName(),
            "--config",
            config.toString()));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  /**
   * Whether this JVM was started with SIGHUP ignored (under {@code nohup}): its children inherit
   * that, the JVM then installs no handler for it, and a reload on SIGHUP cannot be tried.
   */
  private static boolean hangUpIgnoredHere() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false;
    }
    for (String l : Files.readAllLines(status)) {
      if (l.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(l.substring(7).strip(), 16) & 1) != 0; // bit 0: SIGHUP
      }
    }
    return false;
  }

  private static void assumeHangUpsReachThePdp() throws IOException {
    assumeFalse(
        hangUpIgnoredHere(),
        "SIGHUP is ignored by this test's JVM (run under nohup?), so by the PDP it starts too");
  }

  /** The process's output lines as they come. */
  private static BlockingQueue<String> linesOf(Process p) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  lines.add(l);
                }
              } catch (IOException e) {
                // process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  private static String table(String first, String second) {
    return CryptoConfig.builder()
        .defaults("SunJCE", "SUN")
        .prefer(Algorithm.HMAC_SHA256, first, second)
        .build()
        .toXml();
  }

  /**
   * Started with SIGHUP ignored (as under {@code nohup}), the PDP says that a reload signal will do
   * nothing, instead of taking it in silence (it did before 2026-11-29).
   */
  @Test
  void aPdpStartedWithHangUpsIgnoredSaysSo() throws Exception {
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen port=\"0\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    Process p =
        launch(dir.resolve("pdp.xml"), List.of("sh", "-c", "trap '' HUP; exec \"$@\"", "sh"));
    BlockingQueue<String> lines = linesOf(p);
    try {
      assertTrue(next(lines, "SIGHUP is ignored by this process").contains("watch=\"true\""));
      next(lines, "PDP listening on 127.0.0.1:");
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void sighupReadsTheCryptoTableAgain() throws Exception {
    assumeHangUpsReachThePdp();
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Files.writeString(dir.resolve("crypto.xml"), table("SunJCE", "BC"));
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><crypto config=\"crypto.xml\"/><listen port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    Process p = launch(dir.resolve("pdp.xml"));
    BlockingQueue<String> lines = linesOf(p);
    try {
      assertTrue(next(lines, "crypto: generation 1").contains("HmacSHA256=SunJCE"));
      next(lines, "PDP listening on 127.0.0.1:");
      Files.writeString(dir.resolve("crypto.xml"), table("BC", "SunJCE"));
      new ProcessBuilder("kill", "-HUP", String.valueOf(p.pid())).start().waitFor();
      assertTrue(next(lines, "crypto: switched to generation 2").contains("HmacSHA256=BC"));
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void startsReloadsOnSighupAndStopsOnSigterm() throws Exception {
    assumeHangUpsReachThePdp();
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen port=\"0\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    Process p = launch(dir.resolve("pdp.xml"));
    BlockingQueue<String> lines = linesOf(p);
    try {
      assertTrue(next(lines, "PDP listening on 127.0.0.1:").startsWith("PDP listening on"));
      Files.writeString(
          dir.resolve("rules.xml"),
          "<rules><rule id=\"a\" decision=\"install\"/><default decision=\"remove\"/></rules>");
      new ProcessBuilder("kill", "-HUP", String.valueOf(p.pid())).start().waitFor();
      assertTrue(next(lines, "reloaded").contains("1 rules"));
      p.destroy(); // SIGTERM: the shutdown hook closes the PDP (PEPs get CC 11: see the
      // integration tests; run by hand, the log's last line is "PDP stopped; ...")
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the PDP did not stop on SIGTERM");
      assertEquals(143, p.exitValue(), "128 + SIGTERM");
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void aBrokenConfigurationExitsWithOneLine() throws Exception {
    Files.writeString(dir.resolve("pdp.xml"), "<pdp><listen port=\"x\"/></pdp>");
    Process p = launch(dir.resolve("pdp.xml"));
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue());
    assertTrue(out.startsWith("pdp-server: " + dir.resolve("pdp.xml") + ":1:"), out);
    assertEquals(1, out.lines().count(), out);
  }
}
