package dev.portcullis.crypto.kat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.TestProviders;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.security.Provider;
import java.security.Security;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KnownAnswersTest {

  private static Provider jdk(Algorithm a) {
    return Security.getProvider(a.kind() == Algorithm.Kind.DIGEST ? "SUN" : "SunJCE");
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void everyAlgorithmHasVectorsAndTheJdkPassesThemAll(Algorithm a) {
    assertTrue(KnownAnswers.count(a) >= 2, a + " has too few vectors");
    SelfTestResult r = KnownAnswers.run(jdk(a), a);
    assertTrue(r.passed(), r.summary());
    assertEquals(KnownAnswers.count(a), r.vectors());
    assertEquals(0, r.skipped(), "the JDK supports every parameter in the vectors");
  }

  @Test
  void wycheproofVectorsAreLoadedIncludingInvalidOnes() {
    assertTrue(KnownAnswers.count(Algorithm.AES_GCM) > 300);
    assertTrue(
        KnownAnswers.vectors(Algorithm.HMAC_SHA256).stream().anyMatch(v -> !v.valid()),
        "modified-tag vectors must be present");
    assertTrue(
        KnownAnswers.vectors(Algorithm.AES_CBC).stream().anyMatch(v -> !v.valid()),
        "bad-padding vectors must be present");
    assertTrue(
        Stream.of(Algorithm.HMAC_MD5, Algorithm.HMAC_SHA1, Algorithm.HMAC_SHA512)
            .allMatch(
                a ->
                    KnownAnswers.vectors(a).stream().anyMatch(v -> v.origin().startsWith("RFC "))));
  }

  @Test
  void aProviderWithAWrongMacFailsAndTheReportNamesTheVector() {
    SelfTestResult r = KnownAnswers.run(new TestProviders.BrokenProvider(), Algorithm.HMAC_SHA256);
    assertFalse(r.passed());
    assertTrue(r.detail().contains("RFC 4231 test 1"), r.detail());
    assertTrue(r.detail().contains("wrong MAC"), r.detail());
    assertTrue(r.summary().startsWith("FAILED"), r.summary());
  }

  @Test
  void aProviderWithoutTheAlgorithmFailsWithoutThrowing() {
    SelfTestResult r = KnownAnswers.run(new TestProviders.BrokenProvider(), Algorithm.AES_GCM);
    assertFalse(r.passed());
    assertTrue(r.detail().contains("NoSuchAlgorithmException"), r.detail());
  }
}
