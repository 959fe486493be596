package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * PortcullisNative as a drop-in JCA provider, each standard way in a fresh JVM: {@code
 * ServiceLoader<Provider>} (the jar's {@code META-INF/services/java.security.Provider}), {@code
 * Security.addProvider}, and a {@code security.provider.N} line in a {@code java.security} override
 * file. Each finds it, MACs RFC 4231 test 2 right, and then finds it by name.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DropInTest {
  private static final String RFC4231_2 =
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

  @TempDir Path dir;

  private static String run(String way, String... jvmArgs) throws Exception {
    return FreshJvm.run(
        System.getProperty("java.class.path"), List.of(jvmArgs), DropInProbe.class, way);
  }

  private static void assertWorks(String out, boolean byName) {
    assertTrue(out.contains("found PortcullisNative"), out);
    assertTrue(out.contains("HmacSHA256 " + RFC4231_2), out);
    assertTrue(out.contains("by name: " + byName), out);
  }

  @Test
  void foundByServiceLoader() throws Exception {
    assertWorks(run("service-loader"), false); // found, not installed: not by name
  }

  @Test
  void installedWithAddProvider() throws Exception {
    assertWorks(run("add-provider"), true);
  }

  @Test
  void installedFromAJavaSecurityFile() throws Exception {
    Path file = dir.resolve("java.security");
    // Right after the JDK's own providers: the JDK stops reading the list at the first gap.
    int next = 1;
    while (Security.getProperty("security.provider." + next) != null) {
      next++;
    }
    Files.writeString(
        file,
        "security.provider." + next + "=dev.portcullis.nativecrypto.PortcullisNativeProvider\n");
    assertWorks(run("java-security", "-Djava.security.properties=" + file), true);
  }

  @Test
  void firstInAJavaSecurityFileItServesPlainGetInstance() throws Exception {
    Path file = dir.resolve("java.security");
    Files.writeString(
        file, "security.provider.1=dev.portcullis.nativecrypto.PortcullisNativeProvider\n");
    String out = run("java-security", "-Djava.security.properties=" + file);
    assertWorks(out, true);
    assertTrue(out.contains("Mac.getInstance(HmacSHA256) default: PortcullisNative"), out);
  }
}
