package dev.portcullis.pep;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.pdp.PdpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Integrity MAC's provider switched back and forth under live traffic, on both sides: 32 PEPs
 * keep requests in flight while the crypto table is rewritten and reloaded (the PDP as SIGHUP does,
 * the PEPs' registry through the Java API) between PortcullisNative, SunJCE and ACCP. No request
 * fails, no message is refused, no PEP reconnects, and every provider served MACs.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CryptoSwitchTest {
  @TempDir Path dir;

  private static final int PEPS = 32;

  private static String table(String first, String second) {
    return CryptoConfig.builder()
        .defaults("SunJCE", "SUN")
        .prefer(Algorithm.HMAC_SHA256, first, second)
        .build()
        .toXml();
  }

  @Test
  void switchingTheIntegrityMacUnderTrafficLosesNothing() throws Exception {
    Path table = dir.resolve("crypto.xml");
    Files.writeString(table, table("PortcullisNative", "SunJCE"));
    Instant now = Instant.now();
    String keys = SecureCopsTest.key(1, "k1.hex", now.minusSeconds(3600), now.plusSeconds(3600));
    List<PepClient> peps = new ArrayList<>();
    ExecutorService traffic = Executors.newFixedThreadPool(PEPS);
    try (PdpServer pdp =
            Pdps.start(
                dir,
                "<crypto config=\"crypto.xml\"/>",
                SecureCopsTest.integrityPdp(keys, "integrity"));
        CryptoRegistry pepCrypto = IntegrityKeys.registry(table, List.of())) {
      PepSecurity security = SecureCopsTest.pepIntegrity(dir, pepCrypto, keys);
      for (int i = 0; i < PEPS; i++) {
        PepClient pep = SecureCopsTest.pep(pdp, "gw-" + i, security, new PepListener() {});
        peps.add(pep);
        PdpPepIntegrationTest.await(pep.open());
      }
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLong decided = new AtomicLong();
      List<Future<?>> loops = new ArrayList<>();
      for (PepClient pep : peps) {
        loops.add(
            traffic.submit(
                () -> {
                  for (int n = 0; running.get(); n++) {
                    PepDecision d =
                        PdpPepIntegrationTest.await(
                            pep.request(
                                "h" + (n % 4),
                                PdpPepIntegrationTest.CTX,
                                PdpPepIntegrationTest.ssh("alice")));
                    assertTrue(d.granted());
                    decided.incrementAndGet();
                  }
                  return null;
                }));
      }
      String[][] orders = {
        {"SunJCE", "PortcullisNative"}, {"ACCP", "SunJCE"}, {"PortcullisNative", "SunJCE"}
      };
      for (int round = 0; round < 12; round++) {
        String[] o = orders[round % orders.length];
        Files.writeString(table, table(o[0], o[1]));
        pdp.reloadCrypto();
        pepCrypto.reload();
        long before = decided.get();
        await()
            .until(
                () ->
                    decided.get()
                        >= before
                            + 200); // decisions flow under the new table before the next switch
        assertEquals(o[0], pepCrypto.providerFor(Algorithm.HMAC_SHA256));
        assertEquals(
            o[0], pdp.cryptoStatus().table().selection(Algorithm.HMAC_SHA256).providerName());
      }
      running.set(false);
      for (Future<?> f : loops) {
        f.get(30, TimeUnit.SECONDS); // rethrows any failed request
      }
      assertTrue(decided.get() > 12 * 200, "decisions: " + decided.get());
      assertEquals(0, pdp.stats().protocolErrors(), pdp.stats().summary());
      assertEquals(0, pdp.stats().securityRefusals(), pdp.stats().summary());
      assertEquals(PEPS, pdp.stats().totalConnections(), "no PEP reconnected");
      Map<String, Long> served = pdp.cryptoStatus().operations().get(Algorithm.HMAC_SHA256);
      for (String p : List.of("PortcullisNative", "SunJCE", "ACCP")) {
        assertTrue(served.getOrDefault(p, 0L) > 0, "PDP MACs by provider: " + served);
      }
    } finally {
      traffic.shutdownNow();
      for (PepClient pep : peps) {
        pep.close();
      }
    }
  }
}
