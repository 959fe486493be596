package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every native entry point under {@code -Xcheck:jni}, in a fresh JVM whose whole output is read:
 * the JVM's JNI checks print "WARNING in native method" (or abort) on a misuse — a call inside a
 * critical region, a pending exception ignored, a bad reference.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckJniTest {
  @Test
  void theWorkoutRunsCleanUnderCheckJni() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xcheck:jni",
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    NativeWorkout.class.getName()))
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("workout done"), out);
    // HotSpot prints both "WARNING in native method: ..." and "Warning: Calling other JNI
    // functions in the scope of Get/ReleasePrimitiveArrayCritical ...".
    String lower = out.toLowerCase(Locale.ROOT);
    assertFalse(lower.contains("warning"), out);
    assertFalse(lower.contains("fatal error"), out);
  }
}
