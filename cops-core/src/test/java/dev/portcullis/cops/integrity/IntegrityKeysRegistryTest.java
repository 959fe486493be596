package dev.portcullis.cops.integrity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Integrity MACs come from the component's crypto configuration when it names one. */
class IntegrityKeysRegistryTest {
  @TempDir Path dir;

  private IntegrityKeys.Spec key(IntegrityAlgorithm a) {
    return new IntegrityKeys.Spec(
        1, a, dir.resolve("k1.hex"), true, Instant.MIN, Instant.MAX, "pdp.xml", 12);
  }

  private Path table(String algorithms) throws Exception {
    Path f = dir.resolve("crypto-providers.xml");
    Files.writeString(
        f,
        "<crypto-providers version=\"1\" prewarm=\"false\"><default><provider name=\"SunJCE\"/><provider name=\"SUN\"/>"
            + "</default>"
            + algorithms
            + "</crypto-providers>");
    return f;
  }

  @Test
  void theNamedTableChoosesTheProvider() throws Exception {
    Path f = table("<algorithm name=\"HmacSHA256\"><provider name=\"BC\"/></algorithm>");
    try (CryptoRegistry r =
        IntegrityKeys.registry(f, List.of(key(IntegrityAlgorithm.HMAC_SHA256_128)))) {
      assertEquals("BC", r.providerFor(Algorithm.HMAC_SHA256));
      assertTrue(r.summary().contains("HmacSHA256=BC"), r.summary());
    }
  }

  @Test
  void withoutATableTheBuiltInDefaultsServe() throws Exception {
    try (CryptoRegistry r =
        IntegrityKeys.registry(null, List.of(key(IntegrityAlgorithm.HMAC_SHA256_128)))) {
      assertEquals("SunJCE", r.providerFor(Algorithm.HMAC_SHA256));
    }
  }

  @Test
  void aLegacyKeyNeedsTheTableToEnableItsAlgorithm() throws Exception {
    Path f = table("<algorithm name=\"HmacSHA256\"><provider name=\"SunJCE\"/></algorithm>");
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> IntegrityKeys.registry(f, List.of(key(IntegrityAlgorithm.HMAC_MD5_96))));
    assertTrue(e.getMessage().contains("pdp.xml"), e.getMessage());
    assertTrue(e.getMessage().contains("HmacMD5"), e.getMessage());
    assertTrue(e.getMessage().contains("legacy=\"true\""), e.getMessage());
  }
}
