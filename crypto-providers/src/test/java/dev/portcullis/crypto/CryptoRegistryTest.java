package dev.portcullis.crypto;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.CandidateReport.Verdict;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CryptoRegistryTest {
  private static final ProviderDirectory DIR = TestProviders.withFaultyProviders();

  private static CryptoConfig.Builder base() {
    return CryptoConfig.builder().defaults("SunJCE", "SUN").prewarm(false);
  }

  private static CandidateReport report(CryptoRegistry r, Algorithm a, String provider) {
    return r.table().selection(a).candidates().stream()
        .filter(c -> c.provider().equals(provider))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aMissingProviderIsReportedAndTheNextOneServes() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(
            base().prefer(Algorithm.HMAC_SHA256, "PortcullisNative", "SunJCE").build(), DIR)) {
      assertEquals("SunJCE", r.providerFor(Algorithm.HMAC_SHA256));
      CandidateReport c = report(r, Algorithm.HMAC_SHA256, "PortcullisNative");
      assertEquals(Verdict.MISSING, c.verdict());
      assertTrue(c.detail().contains("no provider factory named PortcullisNative"), c.detail());
      assertTrue(r.status().format().contains("MISSING"));
    }
  }

  @Test
  void aProviderThatFailsToLoadIsReportedWithItsCause() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(
            base().prefer(Algorithm.AES_GCM, TestProviders.EXPLODING, "SunJCE").build(), DIR)) {
      assertEquals("SunJCE", r.providerFor(Algorithm.AES_GCM));
      CandidateReport c = report(r, Algorithm.AES_GCM, TestProviders.EXPLODING);
      assertEquals(Verdict.LOAD_FAILED, c.verdict());
      assertTrue(c.detail().contains("UnsatisfiedLinkError"), c.detail());
      assertTrue(c.detail().contains("libexploding.so"), c.detail());
      ProviderDirectory.Lookup l = r.directory().lookup(TestProviders.EXPLODING);
      assertTrue(l.cause() instanceof UnsatisfiedLinkError);
    }
  }

  @Test
  void aProviderThatFailsAKnownAnswerTestIsNotAdmitted() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(
            base().prefer(Algorithm.HMAC_SHA256, TestProviders.BROKEN, "SunJCE").build(), DIR)) {
      assertEquals("SunJCE", r.providerFor(Algorithm.HMAC_SHA256));
      CandidateReport c = report(r, Algorithm.HMAC_SHA256, TestProviders.BROKEN);
      assertEquals(Verdict.SELF_TEST_FAILED, c.verdict());
      assertTrue(c.detail().contains("wrong MAC"), c.detail());
      // and the MAC the registry computes is the right one
      byte[] key = new byte[32];
      byte[] mac = r.macKey(Algorithm.HMAC_SHA256, key).compute(new byte[10]);
      Mac ref = Mac.getInstance("HmacSHA256", "SunJCE");
      ref.init(new SecretKeySpec(key, 0, 32, "HmacSHA256"));
      assertTrue(Arrays.equals(ref.doFinal(new byte[10]), mac));
    }
  }

  @Test
  void withSelfTestsOffABrokenProviderWouldServe() throws Exception {
    // The counterpart of the test above: it is the known-answer test that keeps it out.
    try (CryptoRegistry r =
        CryptoRegistry.create(
            base().selfTest(false).prefer(Algorithm.HMAC_SHA256, TestProviders.BROKEN).build(),
            DIR)) {
      assertEquals(TestProviders.BROKEN, r.providerFor(Algorithm.HMAC_SHA256));
    }
  }

  @Test
  void aProviderWithoutTheAlgorithmIsPassedOver() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(base().prefer(Algorithm.SHA_256, "SunJCE", "SUN").build(), DIR)) {
      assertEquals("SUN", r.providerFor(Algorithm.SHA_256));
      assertEquals(Verdict.NO_SERVICE, report(r, Algorithm.SHA_256, "SunJCE").verdict());
    }
  }

  @Test
  void noProviderLeftFailsStartUpNamingTheAlgorithmAndEveryReason() {
    ProviderSelectionException e =
        assertThrows(
            ProviderSelectionException.class,
            () ->
                CryptoRegistry.create(
                    base()
                        .prefer(
                            Algorithm.HMAC_SHA256,
                            "PortcullisNative",
                            TestProviders.EXPLODING,
                            TestProviders.BROKEN)
                        .build(),
                    DIR));
    assertEquals(Algorithm.HMAC_SHA256, e.algorithm());
    String m = e.getMessage();
    assertTrue(m.contains("HmacSHA256: no provider left"), m);
    assertTrue(m.contains("PortcullisNative: not installed"), m);
    assertTrue(m.contains("Exploding: failed to load"), m);
    assertTrue(m.contains("Broken: FAILED"), m);
  }

  @Test
  void aRejectedReconfigureLeavesTheRunningTable() throws Exception {
    try (CryptoRegistry r = CryptoRegistry.create(base().build(), DIR)) {
      ProviderTable before = r.table();
      MacKey k = r.macKey(Algorithm.HMAC_SHA256, new byte[16]);
      byte[] expected = k.compute(new byte[3]);
      assertThrows(
          ProviderSelectionException.class,
          () -> r.reconfigure(base().prefer(Algorithm.AES_GCM, TestProviders.EXPLODING).build()));
      assertSame(before, r.table());
      assertNotNull(r.status().lastRejection());
      assertTrue(Arrays.equals(expected, k.compute(new byte[3])));
      r.reconfigure(base().prefer(Algorithm.AES_GCM, "BC").build());
      assertEquals(before.generation() + 1, r.table().generation());
      assertNull(r.status().lastRejection());
    }
  }

  @Test
  void legacyAlgorithmsAreRefusedUnlessEnabled() throws Exception {
    try (CryptoRegistry r = CryptoRegistry.create(base().build(), DIR)) {
      DisabledAlgorithmException e =
          assertThrows(
              DisabledAlgorithmException.class, () -> r.macKey(Algorithm.HMAC_MD5, new byte[16]));
      assertTrue(e.getMessage().contains("legacy=\"true\""), e.getMessage());
      assertTrue(r.status().format().contains("DISABLED"));
    }
    try (CryptoRegistry r =
        CryptoRegistry.create(base().enableLegacy(Algorithm.HMAC_MD5).build(), DIR)) {
      assertEquals(16, r.macKey(Algorithm.HMAC_MD5, new byte[16]).compute(new byte[1]).length);
      assertTrue(r.status().format().contains("HmacMD5 (legacy)"));
    }
  }

  @Test
  void statusExplainsEveryCandidate() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(
            base().prefer(Algorithm.HMAC_SHA256, TestProviders.BROKEN, "SunJCE", "BC").build(),
            DIR)) {
      List<CandidateReport> c = r.table().selection(Algorithm.HMAC_SHA256).candidates();
      assertEquals(
          List.of(Verdict.SELF_TEST_FAILED, Verdict.CHOSEN, Verdict.STANDBY),
          c.stream().map(CandidateReport::verdict).toList());
      assertTrue(c.get(1).detail().startsWith("passed "), c.get(1).detail());
      String table = r.status().format();
      assertTrue(table.contains("generation 1"), table);
      assertTrue(table.contains("STANDBY"), table);
    }
  }

  @Test
  void providerFactoriesAreFoundWithServiceLoader(@TempDir Path dir) throws Exception {
    assertTrue(
        ProviderDirectory.discover()
            .names()
            .containsAll(List.of("SunJCE", "SUN", "BC", "Conscrypt", "ACCP")));
    // A module that ships a factory only lists it in META-INF/services.
    Path services = dir.resolve("META-INF/services");
    Files.createDirectories(services);
    Files.writeString(
        services.resolve("dev.portcullis.crypto.spi.CryptoProviderFactory"),
        TestProviders.BrokenFactory.class.getName() + "\n",
        StandardCharsets.UTF_8);
    try (URLClassLoader cl =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      ProviderDirectory d = ProviderDirectory.discover(cl);
      assertTrue(d.names().contains(TestProviders.BROKEN), d.names().toString());
      assertTrue(d.lookup(TestProviders.BROKEN).available());
    }
  }

  @Test
  void aWatchedFileSwitchesTheTableAndABadEditIsRejected(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("crypto.xml");
    Files.writeString(f, config("SunJCE"));
    try (CryptoRegistry r = CryptoRegistry.open(f, DIR)) {
      assertEquals("SunJCE", r.providerFor(Algorithm.HMAC_SHA256));
      MacKey k = r.macKey(Algorithm.HMAC_SHA256, new byte[20]);

      Files.writeString(f, config("BC"));
      awaitProvider(r, "BC");
      assertEquals("BC", k.provider(), "existing handles follow the switch");

      Files.writeString(f, config("BC").replace("<default>", "<default bogus=\"1\">"));
      // the write truncates, then writes: a poll in between may see a partial file, rejected
      // too; the bogus attribute's rejection follows on the next poll
      await().until(() -> String.valueOf(r.status().lastRejection()).contains("bogus"));
      String rejection = r.status().lastRejection();
      assertNotNull(rejection, "bad edit not noticed");
      assertTrue(rejection.startsWith(f + ":"), rejection);
      assertTrue(rejection.contains("bogus"), rejection);
      assertEquals("BC", r.providerFor(Algorithm.HMAC_SHA256), "old table stays in force");

      Files.writeString(f, config("SunJCE"));
      awaitProvider(r, "SunJCE");
    }
  }

  @Test
  void reloadReadsTheFileAgain(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("crypto.xml");
    Files.writeString(f, config("SunJCE").replace("watch=\"true\"", "watch=\"false\""));
    try (CryptoRegistry r = CryptoRegistry.open(f, DIR)) {
      Files.writeString(f, config("BC").replace("watch=\"true\"", "watch=\"false\""));
      assertEquals("SunJCE", r.providerFor(Algorithm.HMAC_SHA256), "no watch: no change");
      r.reload();
      assertEquals("BC", r.providerFor(Algorithm.HMAC_SHA256));
      Files.writeString(f, "<crypto-providers/>");
      ConfigException e = assertThrows(ConfigException.class, r::reload);
      assertTrue(e.getMessage().startsWith(f.toString()), e.getMessage());
      assertEquals("BC", r.providerFor(Algorithm.HMAC_SHA256));
    }
    try (CryptoRegistry r = CryptoRegistry.create(base().build(), DIR)) {
      assertThrows(IllegalStateException.class, r::reload);
    }
  }

  private static void awaitProvider(CryptoRegistry r, String provider) {
    await()
        .alias("the watch switches to " + provider)
        .until(() -> provider.equals(r.providerFor(Algorithm.HMAC_SHA256)));
  }

  private static String config(String hmacProvider) {
    return "<crypto-providers prewarm=\"false\" watch=\"true\" watch-interval=\"PT0.05S\">\n"
        + "  <default><provider name=\"SunJCE\"/><provider name=\"SUN\"/></default>\n"
        + "  <algorithm name=\"HmacSHA256\"><provider name=\""
        + hmacProvider
        + "\"/></algorithm>\n"
        + "</crypto-providers>\n";
  }
}
