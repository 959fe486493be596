package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.crypto.kat.KnownAnswers;
import dev.portcullis.crypto.kat.SelfTestResult;
import java.nio.ByteBuffer;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The native HMACs: known answers, agreement with SunJCE, concurrency, the registry's path. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeHmacTest {
  static final Provider NATIVE = new PortcullisNativeProvider();
  static final int[] LENGTHS = {
    0, 1, 3, 63, 64, 65, 127, 128, 129, 1000, 1024, 1025, 4096, 16_383, 65_536
  };

  @Test
  void theLibraryLoadedFromTheJar() {
    assertNull(NativeCrypto.unavailabilityCause());
    assertTrue(
        NativeCrypto.openSslVersion().startsWith("OpenSSL 3"), NativeCrypto.openSslVersion());
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"HMAC_MD5", "HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA384", "HMAC_SHA512"})
  void knownAnswers(Algorithm a) {
    // RFC 2202, RFC 4231 and the Wycheproof HMAC vectors the registry admits providers with.
    SelfTestResult r = KnownAnswers.run(NATIVE, a);
    assertTrue(r.passed(), a + ": " + r.detail());
    assertTrue(r.vectors() > 0);
  }

  static Mac mac(String alg, Provider p, byte[] key) throws Exception {
    Mac m = Mac.getInstance(alg, p);
    m.init(new SecretKeySpec(key, alg));
    return m;
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"HMAC_MD5", "HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA384", "HMAC_SHA512"})
  void agreesWithSunJceOnEveryShapeOfInput(Algorithm a) throws Exception {
    String alg = a.jcaName();
    SplittableRandom rnd = new SplittableRandom(a.ordinal());
    for (int round = 0; round < 4; round++) {
      byte[] key = new byte[1 + rnd.nextInt(200)]; // shorter and longer than the block
      rnd.nextBytes(key);
      Mac ref = mac(alg, Security.getProvider("SunJCE"), key);
      Mac nat = mac(alg, NATIVE, key);
      for (int len : LENGTHS) {
        int off = rnd.nextInt(17);
        byte[] buf = new byte[off + len + 5];
        rnd.nextBytes(buf);
        ref.update(buf, off, len);
        byte[] want = ref.doFinal();
        // one update
        nat.update(buf, off, len);
        assertArrayEquals(want, nat.doFinal(), alg + " len " + len);
        // chunked updates, single bytes among them
        int at = off;
        int end = off + len;
        while (at < end) {
          if (rnd.nextInt(4) == 0) {
            nat.update(buf[at++]);
          } else {
            int n = Math.min(end - at, 1 + rnd.nextInt(300));
            nat.update(buf, at, n);
            at += n;
          }
        }
        assertArrayEquals(want, nat.doFinal(), alg + " chunked, len " + len);
        // heap and direct buffers
        ByteBuffer heap = ByteBuffer.wrap(buf, off, len);
        nat.update(heap);
        assertEquals(off + len, heap.position());
        assertArrayEquals(want, nat.doFinal(), alg + " heap buffer, len " + len);
        ByteBuffer direct = ByteBuffer.allocateDirect(len + 3);
        direct.position(3);
        direct.put(buf, off, len).flip().position(3);
        nat.update(direct);
        assertEquals(len + 3, direct.position());
        assertArrayEquals(want, nat.doFinal(), alg + " direct buffer, len " + len);
        // the one-shot path the registry uses
        try (NativeHmac h = NativeHmac.create(digest(a), key)) {
          byte[] out = new byte[want.length + 4];
          assertEquals(want.length, h.oneShot(buf, off, len, out, 4));
          assertArrayEquals(want, Arrays.copyOfRange(out, 4, out.length));
          direct.position(3);
          assertEquals(want.length, h.oneShot(direct, out, 0));
          assertArrayEquals(want, Arrays.copyOf(out, want.length));
        }
      }
    }
  }

  static NativeHmac.Digest digest(Algorithm a) {
    return NativeHmac.Digest.valueOf(a.jcaName().substring(4));
  }

  @Test
  void resetCloneAndReinit() throws Exception {
    byte[] key = "0123456789abcdef0123456789abcdef".getBytes();
    Mac nat = mac("HmacSHA256", NATIVE, key);
    Mac ref = mac("HmacSHA256", Security.getProvider("SunJCE"), key);
    nat.update("discarded".getBytes());
    nat.reset();
    nat.update("abc".getBytes());
    Mac copy = (Mac) nat.clone();
    copy.update("def".getBytes());
    nat.update("def".getBytes());
    byte[] want = ref.doFinal("abcdef".getBytes());
    assertArrayEquals(want, nat.doFinal());
    assertArrayEquals(want, copy.doFinal());
    nat.init(new SecretKeySpec("another key, long enough".getBytes(), "HmacSHA256"));
    assertNotEquals(
        HexFormat.of().formatHex(want), HexFormat.of().formatHex(nat.doFinal("abcdef".getBytes())));
  }

  @Test
  void badArgumentsAreRefusedBeforeNativeCode() throws Exception {
    NativeHmac h = NativeHmac.create(NativeHmac.Digest.SHA256, new byte[16]);
    byte[] in = new byte[10];
    byte[] out = new byte[32];
    assertThrows(IndexOutOfBoundsException.class, () -> h.oneShot(in, 5, 6, out, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> h.oneShot(in, -1, 2, out, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> h.oneShot(in, 0, 10, out, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> h.update(in, 0, 11));
    h.close();
    h.close(); // idempotent: freed once
    assertThrows(IllegalStateException.class, () -> h.oneShot(in, 0, 1, out, 0));
    assertThrows(
        IllegalStateException.class, () -> Mac.getInstance("HmacSHA256", NATIVE).doFinal());
  }

  @Test
  void manyThreadsManyInstances() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> f = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        f.add(
            pool.submit(
                () -> {
                  SplittableRandom rnd = new SplittableRandom(seed);
                  for (int i = 0; i < 300; i++) {
                    byte[] key = new byte[32];
                    rnd.nextBytes(key);
                    byte[] msg = new byte[rnd.nextInt(2048)];
                    rnd.nextBytes(msg);
                    Mac ref = mac("HmacSHA512", Security.getProvider("SunJCE"), key);
                    try (NativeHmac h = NativeHmac.create(NativeHmac.Digest.SHA512, key)) {
                      byte[] out = new byte[64];
                      h.oneShot(msg, 0, msg.length, out, 0);
                      assertArrayEquals(ref.doFinal(msg), out);
                    }
                    // and some left to the cleaner
                    NativeHmac.create(NativeHmac.Digest.SHA1, key);
                  }
                  return null;
                }));
      }
      for (Future<?> x : f) {
        x.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theRegistryServesItsHotPathFromThisProvider() throws Exception {
    try (CryptoRegistry r =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .defaults("SunJCE", "SUN")
                .prefer(Algorithm.HMAC_SHA256, "PortcullisNative", "SunJCE")
                .prewarm(false)
                .build())) {
      assertEquals("PortcullisNative", r.providerFor(Algorithm.HMAC_SHA256));
      byte[] key = new byte[32];
      MacKey k = r.macKey(Algorithm.HMAC_SHA256, key);
      byte[] out = new byte[32];
      byte[] msg = "packet".getBytes();
      k.compute(msg, 0, msg.length, out, 0);
      assertArrayEquals(mac("HmacSHA256", Security.getProvider("SunJCE"), key).doFinal(msg), out);
    }
  }
}
