package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the library cannot load, the provider registers nothing, the registry falls back to the next
 * provider and says why. Each case runs in a fresh JVM, since a JVM loads the library once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadingFailureTest {
  @TempDir Path dir;

  static String probe(String classpath, String... jvmArgs) throws Exception {
    return FreshJvm.run(classpath, List.of(jvmArgs), LoadProbe.class);
  }

  static void assertFellBack(String out, String because) {
    assertTrue(out.contains("available=false"), out);
    assertTrue(out.contains("services=0"), out);
    assertTrue(out.contains("HmacSHA256=SunJCE"), out);
    assertTrue(out.contains(because), out);
  }

  @Test
  void turnedOffByItsProperty() throws Exception {
    String out = probe(System.getProperty("java.class.path"), "-Dportcullis.native.disable=true");
    assertFellBack(out, "portcullis.native.disable");
  }

  @Test
  void aJarWithoutTheLibrary() throws Exception {
    // This module's classes without META-INF/native, ahead of everything else on the path.
    Path classes = Path.of("target", "classes").toAbsolutePath();
    Path copy = dir.resolve("classes");
    try (var files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path rel = classes.relativize(f);
        if (rel.toString().startsWith("META-INF" + File.separator + "native")) {
          continue;
        }
        Path to = copy.resolve(rel.toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    StringBuilder cp = new StringBuilder(copy.toString());
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!Path.of(e).toAbsolutePath().equals(classes)) {
        cp.append(File.pathSeparator).append(e);
      }
    }
    String out = probe(cp.toString());
    assertFellBack(out, "not in the jar for linux-");
  }
}
