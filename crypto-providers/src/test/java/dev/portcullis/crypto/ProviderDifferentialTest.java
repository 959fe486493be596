package dev.portcullis.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One test body per algorithm, run against every installed provider that offers it (the Conscrypt
 * ServiceTester idea), through the registry's hot-path handles, and checked against SunJCE/SUN on
 * random inputs in byte arrays, heap buffers and direct buffers.
 */
class ProviderDifferentialTest {
  private static final int[] EDGE_SIZES = {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1500};
  private static final int RANDOM_ROUNDS = 24;

  private static final Map<String, CryptoRegistry> REGISTRIES = new HashMap<>();

  @BeforeAll
  static void registries() throws Exception {
    ProviderDirectory dir = ProviderDirectory.of(TestProviders.builtins());
    for (String name : dir.names()) {
      if (!dir.lookup(name).available()) {
        continue;
      }
      // This provider first for everything; the JDK behind it for what it lacks.
      CryptoConfig.Builder b = CryptoConfig.builder().prewarm(false).selfTest(false);
      List<String> order = new ArrayList<>(List.of(name));
      for (String fallback : List.of("SunJCE", "SUN")) {
        if (!order.contains(fallback)) {
          order.add(fallback);
        }
      }
      b.defaults(order.toArray(new String[0]));
      b.enableLegacy(Algorithm.HMAC_MD5).enableLegacy(Algorithm.HMAC_SHA1);
      REGISTRIES.put(name, CryptoRegistry.create(b.build(), dir));
    }
  }

  @AfterAll
  static void close() {
    REGISTRIES.values().forEach(CryptoRegistry::close);
  }

  static Stream<Arguments> providerAlgorithmPairs() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : Algorithm.values()) {
      for (String p : TestProviders.offering(a)) {
        out.add(Arguments.of(p, a));
      }
    }
    return out.stream();
  }

  private static byte[] random(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static List<Integer> sizes(SplittableRandom r) {
    List<Integer> s = new ArrayList<>();
    for (int e : EDGE_SIZES) {
      s.add(e);
    }
    for (int i = 0; i < RANDOM_ROUNDS; i++) {
      s.add(r.nextInt(4096));
    }
    return s;
  }

  private static ByteBuffer direct(byte[] b) {
    ByteBuffer d = ByteBuffer.allocateDirect(b.length + 7);
    d.position(3); // an unaligned start, as a buffer slice from a packet would have
    d.put(b).flip().position(3);
    return d;
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("providerAlgorithmPairs")
  void agreesWithTheJdk(String provider, Algorithm a) throws Exception {
    CryptoRegistry registry = REGISTRIES.get(provider);
    SplittableRandom rnd = new SplittableRandom(a.ordinal() * 31L + provider.hashCode());
    switch (a.kind()) {
      case MAC:
        mac(registry, provider, a, rnd);
        break;
      case CIPHER:
        cipher(registry, provider, a, rnd);
        break;
      default:
        digest(registry, provider, a, rnd);
        break;
    }
  }

  private static void mac(CryptoRegistry registry, String provider, Algorithm a, SplittableRandom r)
      throws Exception {
    for (int keyLen : new int[] {1, 16, 32, 64, 200}) {
      byte[] key = random(r, keyLen);
      MacKey k = registry.macKey(a, key);
      assertEquals(provider, k.provider());
      Mac ref = Mac.getInstance(a.jcaName(), "SunJCE");
      ref.init(new SecretKeySpec(key, a.jcaName()));
      for (int n : sizes(r)) {
        byte[] data = random(r, n + 5);
        ref.update(data, 2, n);
        byte[] expected = ref.doFinal();

        byte[] out = new byte[k.macLength() + 3];
        assertEquals(k.macLength(), k.compute(data, 2, n, out, 3));
        assertArrayEquals(expected, Arrays.copyOfRange(out, 3, out.length), "array, " + n);

        byte[] heap = new byte[k.macLength()];
        ByteBuffer hb = ByteBuffer.wrap(data, 2, n);
        k.compute(hb, heap, 0);
        assertArrayEquals(expected, heap, "heap buffer, " + n);
        assertFalse(hb.hasRemaining());

        byte[] dir = new byte[k.macLength()];
        ByteBuffer db = direct(Arrays.copyOfRange(data, 2, 2 + n));
        k.compute(db, dir, 0);
        assertArrayEquals(expected, dir, "direct buffer, " + n);

        assertTrue(k.verify(data, 2, n, expected, 0, expected.length));
        assertTrue(k.verify(data, 2, n, expected, 0, MacKey.MIN_TAG_LENGTH), "truncated");
        assertTrue(k.verify(direct(Arrays.copyOfRange(data, 2, 2 + n)), expected, 0, 16));
        byte[] forged = expected.clone();
        forged[r.nextInt(forged.length)] ^= (byte) (1 << r.nextInt(8));
        assertFalse(k.verify(data, 2, n, forged, 0, forged.length), "forged tag accepted");
      }
      k.destroy();
    }
  }

  private static void cipher(
      CryptoRegistry registry, String provider, Algorithm a, SplittableRandom r) throws Exception {
    for (int keyLen : new int[] {16, 32}) {
      byte[] key = random(r, keyLen);
      CipherKey k = registry.cipherKey(a, key);
      assertEquals(provider, k.provider());
      int seq = 0;
      for (int n : sizes(r)) {
        byte[] iv = random(r, a == Algorithm.AES_GCM ? 12 : 16);
        iv[0] = (byte) seq++; // distinct nonces within one key
        iv[1] = (byte) (seq >>> 8);
        byte[] aad = a == Algorithm.AES_GCM ? random(r, r.nextInt(40)) : null;
        byte[] plain = random(r, n);

        Cipher ref = Cipher.getInstance(a.jcaName(), "SunJCE");
        ref.init(
            Cipher.ENCRYPT_MODE,
            new SecretKeySpec(key, "AES"),
            a == Algorithm.AES_GCM ? new GCMParameterSpec(128, iv) : new IvParameterSpec(iv));
        if (aad != null) {
          ref.updateAAD(aad);
        }
        byte[] expected = ref.doFinal(plain);

        byte[] ct = k.encrypt(iv, aad, plain);
        assertArrayEquals(expected, ct, "array encrypt, " + n);
        assertArrayEquals(plain, k.decrypt(iv, aad, ct), "array decrypt, " + n);

        ByteBuffer out = ByteBuffer.allocate(k.outputSize(false, ct.length));
        k.decrypt(iv, aad, ByteBuffer.wrap(ct), out);
        assertArrayEquals(plain, Arrays.copyOf(out.array(), out.position()), "heap decrypt");

        ByteBuffer dOut = ByteBuffer.allocateDirect(k.outputSize(true, n));
        if (a != Algorithm.AES_GCM) {
          // (GCM re-encryption under the same nonce is refused by SunJCE, rightly.)
          k.encrypt(iv, aad, direct(plain), dOut);
          byte[] got = new byte[dOut.flip().remaining()];
          dOut.get(got);
          assertArrayEquals(expected, got, "direct encrypt, " + n);
        }
        ByteBuffer dPlain = ByteBuffer.allocateDirect(Math.max(1, n + 16));
        k.decrypt(iv, aad, direct(ct), dPlain);
        byte[] back = new byte[dPlain.flip().remaining()];
        dPlain.get(back);
        assertArrayEquals(plain, back, "direct decrypt, " + n);

        if (a == Algorithm.AES_GCM) {
          byte[] forged = ct.clone();
          forged[r.nextInt(forged.length)] ^= 1;
          assertThrows(AEADBadTagException.class, () -> k.decrypt(iv, aad, forged));
        }
      }
      k.destroy();
    }
  }

  private static void digest(
      CryptoRegistry registry, String provider, Algorithm a, SplittableRandom r) {
    Digester d = registry.digester(a);
    assertEquals(provider, d.provider());
    for (int n : sizes(r)) {
      byte[] data = random(r, n);
      byte[] expected;
      try {
        expected = MessageDigest.getInstance(a.jcaName(), "SUN").digest(data);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      assertArrayEquals(expected, d.digest(data), "array, " + n);
      byte[] out = new byte[d.digestLength()];
      d.digest(direct(data), out, 0);
      assertArrayEquals(expected, out, "direct buffer, " + n);
      d.digest(ByteBuffer.wrap(data), out, 0);
      assertArrayEquals(expected, out, "heap buffer, " + n);
    }
  }
}
