package dev.portcullis.crypto.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.ConfigException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CryptoConfigTest {
  static final Path SAMPLE = Path.of("..", "config", "crypto-providers.xml");

  private static CryptoConfig parse(String xml) throws ConfigException {
    return CryptoConfig.parse(
        new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "test.xml");
  }

  private static ConfigException reject(String xml) {
    return assertThrows(ConfigException.class, () -> parse(xml));
  }

  private static final String HEAD =
      "<crypto-providers>\n<default><provider name=\"SunJCE\"/></default>\n";

  @Test
  void writtenAsXmlItReadsBackEqual() throws Exception {
    CryptoConfig c =
        CryptoConfig.builder()
            .defaults("SunJCE", "SUN", "BC")
            .prefer(Algorithm.HMAC_SHA256, "PortcullisNative", "ACCP", "SunJCE")
            .prefer(Algorithm.HMAC_MD5, "SunJCE")
            .enableLegacy(Algorithm.HMAC_MD5)
            .enableLegacy(Algorithm.HMAC_SHA1)
            .prewarm(false)
            .watch(true)
            .watchInterval(Duration.ofSeconds(3))
            .build();
    String xml = c.toXml();
    CryptoConfig back =
        CryptoConfig.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "t");
    assertEquals(c, back, xml);
    assertEquals(Duration.ofSeconds(3), back.watchInterval());
  }

  @Test
  void theSampleConfigurationLoads() throws Exception {
    CryptoConfig c = CryptoConfig.load(SAMPLE);
    assertEquals(SAMPLE.toString(), c.source());
    assertEquals(List.of("SunJCE", "SUN", "BC"), c.defaultProviders());
    assertEquals(
        List.of("PortcullisNative", "ACCP", "SunJCE"), c.candidates(Algorithm.HMAC_SHA256));
    assertTrue(c.enabled(Algorithm.HMAC_MD5));
    assertTrue(c.prewarm());
    assertTrue(c.selfTest());
    assertFalse(c.watch());
    assertEquals(Duration.ofSeconds(2), c.watchInterval());
  }

  @Test
  void defaultsApplyWhenAttributesAndListsAreAbsent() throws Exception {
    CryptoConfig c = parse(HEAD + "<algorithm name=\"SHA-256\"/></crypto-providers>");
    assertTrue(c.prewarm());
    assertTrue(c.selfTest());
    assertFalse(c.watch());
    assertEquals(List.of("SunJCE"), c.candidates(Algorithm.SHA_256));
    assertTrue(c.preferences(Algorithm.SHA_256).isEmpty());
    assertFalse(c.enabled(Algorithm.HMAC_MD5), "legacy algorithms are off unless marked");
    assertFalse(c.enabled(Algorithm.HMAC_SHA1));
    assertTrue(c.enabled(Algorithm.HMAC_SHA256));
  }

  @Test
  void switchesAreRead() throws Exception {
    CryptoConfig c =
        parse(
            "<crypto-providers prewarm=\"false\" self-test=\"0\" watch=\"true\""
                + " watch-interval=\"PT0.25S\"><default><provider name=\"BC\"/></default>"
                + "</crypto-providers>");
    assertFalse(c.prewarm());
    assertFalse(c.selfTest());
    assertTrue(c.watch());
    assertEquals(Duration.ofMillis(250), c.watchInterval());
  }

  @Test
  void malformedXmlNamesLineAndColumn() {
    ConfigException e = reject(HEAD + "<algorithm name=\"SHA-256\">\n</crypto-providers>");
    assertEquals("test.xml", e.source());
    assertEquals(4, e.line());
    assertTrue(e.column() > 0);
    assertTrue(e.getMessage().startsWith("test.xml:4:"), e.getMessage());
  }

  @Test
  void unknownAttributeNamesElementAndAttribute() {
    ConfigException e =
        reject(HEAD + "<algorithm name=\"SHA-256\" fast=\"yes\"/></crypto-providers>");
    assertEquals(3, e.line());
    assertEquals("algorithm", e.element());
    assertEquals("fast", e.attribute());
    assertTrue(
        e.getMessage()
            .startsWith("test.xml:3:" + e.column() + ": element <algorithm>, attribute 'fast': "),
        e.getMessage());
  }

  /** A format this reader does not know is refused, not read as if it were version 1. */
  @Test
  void anUnknownVersionIsRefused() {
    ConfigException e =
        reject(
            "<crypto-providers version=\"2\"><default><provider name=\"BC\"/></default></crypto-providers>");
    assertEquals(1, e.line());
    assertEquals("version", e.attribute());
    assertTrue(e.getMessage().contains("version 2 is not a format"), e.getMessage());
  }

  @Test
  void badBooleanNamesTheAttribute() {
    ConfigException e =
        reject(
            "<crypto-providers prewarm=\"maybe\"><default><provider name=\"BC\"/></default></crypto-providers>");
    assertEquals(1, e.line());
    assertEquals("crypto-providers", e.element());
    assertEquals("prewarm", e.attribute());
    assertTrue(e.getMessage().contains("maybe"), e.getMessage());
  }

  @Test
  void unknownAlgorithmListsTheKnownOnes() {
    ConfigException e = reject(HEAD + "<algorithm name=\"HmacSHA3\"/></crypto-providers>");
    assertEquals("algorithm", e.element());
    assertEquals("name", e.attribute());
    assertTrue(e.getMessage().contains("HmacSHA3"), e.getMessage());
    assertTrue(e.getMessage().contains("HmacSHA256"), e.getMessage());
  }

  @Test
  void badProviderNameIsRejected() {
    ConfigException e =
        reject(
            "<crypto-providers><default><provider name=\"Sun JCE\"/></default></crypto-providers>");
    assertEquals("provider", e.element());
    assertEquals("name", e.attribute());
  }

  @Test
  void anAlgorithmConfiguredTwiceIsRejectedAtTheSecondEntry() {
    ConfigException e =
        reject(
            HEAD
                + "<algorithm name=\"SHA-256\"/>\n<algorithm name=\"SHA-256\"/></crypto-providers>");
    assertEquals(4, e.line());
    assertEquals("algorithm", e.element());
    assertEquals("name", e.attribute());
    assertTrue(e.problem().contains("configured twice"), e.problem());
  }

  @Test
  void aProviderListedTwiceIsRejected() {
    ConfigException e =
        reject(
            HEAD
                + "<algorithm name=\"SHA-256\"><provider name=\"SUN\"/>\n"
                + "<provider name=\"SUN\"/></algorithm></crypto-providers>");
    assertEquals(4, e.line());
    assertEquals("provider", e.element());
    assertTrue(e.problem().contains("listed twice for SHA-256"), e.problem());
  }

  @Test
  void legacyAlgorithmsMustBeMarked() {
    ConfigException e =
        reject(
            HEAD
                + "<algorithm name=\"HmacMD5\"><provider name=\"BC\"/></algorithm></crypto-providers>");
    assertEquals("legacy", e.attribute());
    assertTrue(e.problem().contains("HmacMD5 is a legacy algorithm"), e.problem());

    ConfigException e2 =
        reject(HEAD + "<algorithm name=\"HmacSHA256\" legacy=\"true\"/></crypto-providers>");
    assertEquals("legacy", e2.attribute());
    assertTrue(e2.problem().contains("not a legacy algorithm"), e2.problem());
  }

  @Test
  void durationsWithoutFixedLengthAreRejected() {
    ConfigException e =
        reject(
            "<crypto-providers watch-interval=\"P1M\"><default><provider name=\"BC\"/></default></crypto-providers>");
    assertEquals("watch-interval", e.attribute());
    assertTrue(e.problem().contains("P1M"), e.problem());
    ConfigException neg =
        reject(
            "<crypto-providers watch-interval=\"PT0S\"><default><provider name=\"BC\"/></default></crypto-providers>");
    assertEquals("watch-interval", neg.attribute());
  }

  @Test
  void theDefaultListIsRequired() {
    ConfigException e =
        reject("<crypto-providers>\n<algorithm name=\"SHA-256\"/></crypto-providers>");
    assertEquals(2, e.line());
    assertTrue(e.problem().contains("default"), e.problem());
  }

  @Test
  void wrongRootElementIsRejected() {
    ConfigException e = reject("<providers/>");
    assertEquals(1, e.line());
    assertTrue(e.problem().contains("providers"), e.problem());
  }

  @Test
  void doctypeAndEntitiesAreRefused() {
    ConfigException e =
        reject(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
                + "<crypto-providers><default><provider name=\"&e;\"/></default></crypto-providers>");
    assertEquals(2, e.line());
    assertTrue(e.problem().contains("DOCTYPE"), e.problem());
  }

  @Test
  void aMissingFileSaysSo(@TempDir Path dir) {
    Path f = dir.resolve("nope.xml");
    ConfigException e = assertThrows(ConfigException.class, () -> CryptoConfig.load(f));
    assertEquals(f.toString() + ": file not found", e.getMessage());
  }

  @Test
  void errorsFromAFileNameTheFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("crypto.xml");
    Files.writeString(
        f,
        "<crypto-providers>\n  <default>\n    <provider nam=\"BC\"/>\n  </default>\n</crypto-providers>\n");
    ConfigException e = assertThrows(ConfigException.class, () -> CryptoConfig.load(f));
    assertTrue(e.getMessage().startsWith(f + ":3:"), e.getMessage());
    assertEquals("provider", e.element());
    assertEquals("nam", e.attribute());
    assertNull(e.getMessage().contains("\n") ? "multi-line" : null, "one line: " + e.getMessage());
  }

  @Test
  void theBuilderAppliesTheSameRules() {
    assertThrows(IllegalArgumentException.class, () -> CryptoConfig.builder().build());
    assertThrows(
        IllegalArgumentException.class, () -> CryptoConfig.builder().defaults("BC", "BC").build());
    assertThrows(
        IllegalArgumentException.class,
        () -> CryptoConfig.builder().defaults("BC").enableLegacy(Algorithm.SHA_256).build());
    CryptoConfig c =
        CryptoConfig.builder().defaults("BC").prefer(Algorithm.AES_GCM, "ACCP", "BC").build();
    assertEquals(c, c.toBuilder().build());
  }
}
