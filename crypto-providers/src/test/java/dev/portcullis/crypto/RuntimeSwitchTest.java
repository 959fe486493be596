package dev.portcullis.crypto;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * Several threads MAC and encrypt without pause while the table is switched back and forth between
 * providers: no operation may fail or give a wrong answer, and work started after a switch must be
 * served by the new provider.
 */
class RuntimeSwitchTest {
  private static final int WORKERS = 3;
  private static final int SWITCHES = 40;
  private static final int MESSAGES = 64;

  @RepeatedTest(3)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void switchingUnderLoadLosesNothingAndNewWorkUsesTheNewProvider() throws Exception {
    List<String> macProviders = TestProviders.offering(Algorithm.HMAC_SHA256);
    List<String> gcmProviders = TestProviders.offering(Algorithm.AES_GCM);
    assertTrue(macProviders.size() >= 2, "need two providers to switch between: " + macProviders);
    assertTrue(gcmProviders.size() >= 2, "need two providers to switch between: " + gcmProviders);

    ProviderDirectory dir = ProviderDirectory.of(TestProviders.builtins());
    CryptoRegistry registry = CryptoRegistry.create(config(macProviders, gcmProviders, 0), dir);

    SplittableRandom rnd = new SplittableRandom(42);
    byte[] macKeyBytes = new byte[32];
    byte[] aesKeyBytes = new byte[16];
    rnd.nextBytes(macKeyBytes);
    rnd.nextBytes(aesKeyBytes);
    byte[][] messages = new byte[MESSAGES][];
    byte[][] expectedMacs = new byte[MESSAGES][];
    Mac ref = Mac.getInstance("HmacSHA256", "SunJCE");
    ref.init(new SecretKeySpec(macKeyBytes, "HmacSHA256"));
    for (int i = 0; i < MESSAGES; i++) {
      messages[i] = new byte[rnd.nextInt(1500)];
      rnd.nextBytes(messages[i]);
      expectedMacs[i] = ref.doFinal(messages[i]);
    }
    // Shared by all threads, as a session-key cache would share them.
    MacKey macKey = registry.macKey(Algorithm.HMAC_SHA256, macKeyBytes);
    CipherKey gcmKey = registry.cipherKey(Algorithm.AES_GCM, aesKeyBytes);

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong operations = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      final int worker = w;
      Thread t =
          new Thread(
              () -> {
                try {
                  Cipher check = Cipher.getInstance("AES/GCM/NoPadding", "SunJCE");
                  SecretKeySpec aes = new SecretKeySpec(aesKeyBytes, "AES");
                  byte[] tag = new byte[32];
                  long seq = 0;
                  while (!stop.get()) {
                    int i = (int) (seq % MESSAGES);
                    byte[] m = messages[i];
                    macKey.compute(m, 0, m.length, tag, 0);
                    if (!Arrays.equals(tag, expectedMacs[i])) {
                      throw new AssertionError("wrong MAC for message " + i);
                    }
                    if (!macKey.verify(ByteBuffer.wrap(m), expectedMacs[i], 0, 32)) {
                      throw new AssertionError("MAC did not verify for message " + i);
                    }
                    // A unique nonce per encryption: worker id and sequence number.
                    byte[] nonce = ByteBuffer.allocate(12).putInt(worker).putLong(seq).array();
                    byte[] ct = gcmKey.encrypt(nonce, nonce, m);
                    check.init(Cipher.DECRYPT_MODE, aes, new GCMParameterSpec(128, nonce));
                    check.updateAAD(nonce);
                    if (!Arrays.equals(check.doFinal(ct), m)) {
                      throw new AssertionError("ciphertext does not decrypt with SunJCE");
                    }
                    if (!Arrays.equals(gcmKey.decrypt(nonce, nonce, ct), m)) {
                      throw new AssertionError("round trip failed for message " + i);
                    }
                    seq++;
                    operations.incrementAndGet();
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "switch-worker-" + w);
      threads.add(t);
      t.start();
    }

    try {
      for (int s = 1; s <= SWITCHES && errors.isEmpty(); s++) {
        registry.reconfigure(config(macProviders, gcmProviders, s));
        String macNow = macProviders.get(s % macProviders.size());
        String gcmNow = gcmProviders.get(s % gcmProviders.size());
        assertEquals(macNow, registry.providerFor(Algorithm.HMAC_SHA256));

        // New work is served by the new provider, observably: its operation count moves.
        long before = count(registry, Algorithm.HMAC_SHA256, macNow);
        long beforeGcm = count(registry, Algorithm.AES_GCM, gcmNow);
        macKey.compute(messages[0]);
        byte[] nonce = ByteBuffer.allocate(12).putInt(-1).putLong(s).array();
        gcmKey.encrypt(nonce, null, messages[1]);
        assertTrue(count(registry, Algorithm.HMAC_SHA256, macNow) > before, "MAC not on " + macNow);
        assertTrue(count(registry, Algorithm.AES_GCM, gcmNow) > beforeGcm, "GCM not on " + gcmNow);
        assertEquals(macNow, macKey.provider());
        assertEquals(gcmNow, gcmKey.provider());

        long seen = operations.get();
        // let the workers run on this table for a moment
        await().until(() -> operations.get() >= seen + WORKERS);
      }
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      registry.close();
    }

    if (!errors.isEmpty()) {
      AssertionError e = new AssertionError(errors.size() + " worker errors");
      errors.forEach(e::addSuppressed);
      throw e;
    }
    assertTrue(operations.get() > SWITCHES, "workers made too little progress: " + operations);
    // Every provider in the rotation served real work.
    for (String p : macProviders) {
      assertTrue(count(registry, Algorithm.HMAC_SHA256, p) > 0, p + " never served a MAC");
    }
    for (String p : gcmProviders) {
      assertTrue(count(registry, Algorithm.AES_GCM, p) > 0, p + " never served AES-GCM");
    }
  }

  private static long count(CryptoRegistry r, Algorithm a, String provider) {
    Map<String, Long> ops = r.status().operations().get(a);
    return ops.getOrDefault(provider, 0L);
  }

  /** Table number {@code s}: rotates the first provider of each list. */
  private static CryptoConfig config(List<String> mac, List<String> gcm, int s) {
    return CryptoConfig.builder()
        .defaults("SunJCE", "SUN")
        .prefer(Algorithm.HMAC_SHA256, mac.get(s % mac.size()))
        .prefer(Algorithm.AES_GCM, gcm.get(s % gcm.size()))
        .build();
  }
}
