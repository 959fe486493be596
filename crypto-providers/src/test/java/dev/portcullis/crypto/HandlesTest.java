package dev.portcullis.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.IllegalBlockSizeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Argument checking and lifecycle of the hot-path handles. */
class HandlesTest {
  private static CryptoRegistry registry;

  @BeforeAll
  static void open() throws Exception {
    registry =
        CryptoRegistry.create(
            CryptoConfig.builder().defaults("SunJCE", "SUN").prewarm(false).build(),
            ProviderDirectory.of(TestProviders.builtins()));
  }

  @AfterAll
  static void close() {
    registry.close();
  }

  @Test
  void truncatedTagsDownToEightyBitsVerifyAndShorterOnesAreRefused() {
    MacKey k = registry.macKey(Algorithm.HMAC_SHA256, new byte[32]);
    byte[] data = "packet".getBytes(StandardCharsets.US_ASCII);
    byte[] tag = k.compute(data);
    assertTrue(k.verify(data, 0, data.length, tag, 0, 10));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> k.verify(data, 0, data.length, tag, 0, 9));
    assertTrue(e.getMessage().startsWith("tagLen: 9 (expected: 10 to 32"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> k.verify(data, 0, data.length, new byte[33], 0, 33));
    assertThrows(
        IndexOutOfBoundsException.class, () -> k.compute(data, 2, data.length, new byte[32], 0));
    assertThrows(IndexOutOfBoundsException.class, () -> k.compute(data, 0, 1, new byte[31], 0));
  }

  @Test
  void constantTimeEqualsComparesRanges() {
    byte[] a = {1, 2, 3, 4};
    byte[] b = {9, 2, 3, 4};
    assertTrue(ConstantTime.equals(a, 1, b, 1, 3));
    assertFalse(ConstantTime.equals(a, 0, b, 0, 4));
    assertTrue(ConstantTime.equals(a, 0, b, 0, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> ConstantTime.equals(a, 2, b, 0, 3));
  }

  @Test
  void aDestroyedKeyIsWipedAndRefusesWork() {
    MacKey k = registry.macKey(Algorithm.HMAC_SHA256, new byte[] {1, 2, 3});
    k.compute(new byte[1]);
    k.destroy();
    assertTrue(k.isDestroyed());
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> k.compute(new byte[1]));
    assertTrue(e.getMessage().contains("after destroy"), e.getMessage());
    assertFalse(k.toString().contains("1, 2, 3"));

    CipherKey c = registry.cipherKey(Algorithm.AES_CTR, new byte[16]);
    c.destroy();
    assertThrows(IllegalStateException.class, () -> c.encrypt(new byte[16], null, new byte[1]));
  }

  @Test
  void rawKeysNeverPrintTheirBytes() {
    RawKey k = new RawKey("HmacSHA256", new byte[] {0x41, 0x42}, 0, 2);
    assertEquals("RawKey[HmacSHA256, 2 bytes]", k.toString());
    byte[] copy = k.getEncoded();
    copy[0] = 0;
    assertEquals(0x41, k.getEncoded()[0], "getEncoded hands out copies");
    k.destroy();
    assertThrows(IllegalStateException.class, k::getEncoded);
    assertThrows(IllegalArgumentException.class, () -> new RawKey("AES", new byte[0], 0, 0));
  }

  @Test
  void gcmRejectsForgeriesWrongNoncesAndTruncatedInput() throws Exception {
    CipherKey k = registry.cipherKey(Algorithm.AES_GCM, new byte[32]);
    byte[] nonce = new byte[12];
    byte[] ct = k.encrypt(nonce, new byte[] {7}, new byte[40]);
    assertEquals(56, ct.length);
    assertArrayEquals(new byte[40], k.decrypt(nonce, new byte[] {7}, ct));
    assertThrows(AEADBadTagException.class, () -> k.decrypt(nonce, new byte[] {8}, ct));
    AEADBadTagException shortInput =
        assertThrows(AEADBadTagException.class, () -> k.decrypt(nonce, null, new byte[15]));
    assertTrue(shortInput.getMessage().contains("ciphertext: 15 bytes"), shortInput.getMessage());
    IllegalArgumentException badNonce =
        assertThrows(
            IllegalArgumentException.class, () -> k.encrypt(new byte[8], null, new byte[1]));
    assertEquals("iv: 8 bytes (expected: 12 for AES-GCM)", badNonce.getMessage());
    // SunJCE refuses to encrypt twice with one key and nonce; the pool passes that on.
    assertThrows(GeneralSecurityException.class, () -> k.encrypt(nonce, null, new byte[40]));
    // ...and the handle keeps working afterwards.
    nonce[0] = 1;
    assertEquals(56, k.encrypt(nonce, null, new byte[40]).length);
  }

  @Test
  void cbcRejectsCiphertextsNoEncryptionCouldProduce() throws Exception {
    CipherKey k = registry.cipherKey(Algorithm.AES_CBC, new byte[16]);
    byte[] iv = new byte[16];
    assertThrows(IllegalBlockSizeException.class, () -> k.decrypt(iv, null, new byte[0]));
    assertThrows(IllegalBlockSizeException.class, () -> k.decrypt(iv, null, new byte[17]));
    byte[] ct = k.encrypt(iv, null, new byte[16]);
    assertEquals(32, ct.length, "a full block of padding");
    assertArrayEquals(new byte[16], k.decrypt(iv, null, ct));
    IllegalArgumentException aad =
        assertThrows(IllegalArgumentException.class, () -> k.encrypt(iv, new byte[1], ct));
    assertTrue(aad.getMessage().startsWith("aad: 1 bytes (expected: none"), aad.getMessage());
  }

  @Test
  void keysAndAlgorithmsAreChecked() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> registry.cipherKey(Algorithm.AES_GCM, new byte[20]));
    assertEquals("key: 20 bytes (expected: 16, 24 or 32 for AES)", e.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> registry.macKey(Algorithm.AES_GCM, new byte[16]));
    assertThrows(
        IllegalArgumentException.class, () -> registry.cipherKey(Algorithm.SHA_256, new byte[16]));
    assertThrows(IllegalArgumentException.class, () -> registry.digester(Algorithm.HMAC_SHA256));
    assertThrows(
        IllegalArgumentException.class, () -> registry.macKey(Algorithm.HMAC_SHA256, new byte[0]));
  }

  @Test
  void plainEnginesComeFromTheCurrentProvider() throws Exception {
    assertEquals("SunJCE", registry.newMac(Algorithm.HMAC_SHA384).getProvider().getName());
    assertEquals("SunJCE", registry.newCipher(Algorithm.AES_CTR).getProvider().getName());
    assertEquals("SUN", registry.newMessageDigest(Algorithm.SHA_512).getProvider().getName());
  }
}
