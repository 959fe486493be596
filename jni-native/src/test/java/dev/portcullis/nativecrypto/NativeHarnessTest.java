package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The crypto core without a JVM (src/test/c/harness.c), built with gcc and run under valgrind's
 * memcheck: no invalid access, no use of uninitialised memory, nothing leaked. Skipped where
 * valgrind is not installed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NativeHarnessTest {
  static String run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(150, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
    return out;
  }

  static boolean installed(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theCoreIsCleanUnderValgrind() throws Exception {
    Assumptions.assumeTrue(installed("valgrind"), "valgrind is not installed");
    Path exe = Path.of("target", "harness", "harness");
    Files.createDirectories(exe.getParent());
    run(
        List.of(
            "gcc",
            "-O1",
            "-g",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Isrc/main/c",
            "src/test/c/harness.c",
            "src/main/c/pn_core.c",
            "-lcrypto",
            "-o",
            exe.toString()));
    String out =
        run(
            List.of(
                "valgrind",
                "--error-exitcode=99",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,indirect",
                "--show-leak-kinds=definite,indirect",
                exe.toString()));
    assertTrue(out.contains("harness: all checks passed"), out);
    assertTrue(out.contains("ERROR SUMMARY: 0 errors"), out);
  }
}
