package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.kat.KnownAnswers;
import dev.portcullis.crypto.kat.SelfTestResult;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Provider;
import java.security.Security;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.AEADBadTagException;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** AES-GCM, -CTR, -CBC: known answers (every Wycheproof invalid vector rejected), SunJCE. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeAesTest {
  static final Provider NATIVE = new PortcullisNativeProvider();
  static final Provider SUN = Security.getProvider("SunJCE");

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"AES_GCM", "AES_CTR", "AES_CBC"})
  void knownAnswers(Algorithm a) {
    // SP 800-38A, the GCM specification and Wycheproof (GCM, CBC-PKCS5), as the registry admits.
    SelfTestResult r = KnownAnswers.run(NATIVE, a);
    assertTrue(r.passed(), a + ": " + r.detail());
    assertTrue(r.vectors() > 0);
  }

  static AlgorithmParameterSpec spec(Algorithm a, byte[] iv) {
    return a == Algorithm.AES_GCM ? new GCMParameterSpec(128, iv) : new IvParameterSpec(iv);
  }

  /** Runs {@code c} over {@code in} in random chunks. */
  static byte[] chunked(Cipher c, byte[] in, SplittableRandom rnd) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    while (at < in.length) {
      int n = Math.min(in.length - at, 1 + rnd.nextInt(700));
      byte[] part = c.update(in, at, n);
      if (part != null) {
        out.write(part);
      }
      at += n;
    }
    out.write(c.doFinal());
    return out.toByteArray();
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"AES_GCM", "AES_CTR", "AES_CBC"})
  void agreesWithSunJce(Algorithm a) throws Exception {
    SplittableRandom rnd = new SplittableRandom(a.ordinal());
    for (int keyLength : new int[] {16, 24, 32}) {
      for (int len : new int[] {0, 1, 15, 16, 17, 100, 1024, 4097, 65_536}) {
        byte[] k = new byte[keyLength];
        rnd.nextBytes(k);
        byte[] iv = new byte[a == Algorithm.AES_GCM ? 12 : 16];
        rnd.nextBytes(iv);
        byte[] aad = new byte[rnd.nextInt(40)];
        rnd.nextBytes(aad);
        byte[] text = new byte[len];
        rnd.nextBytes(text);
        SecretKeySpec key = new SecretKeySpec(k, "AES");
        Cipher ref = Cipher.getInstance(a.jcaName(), SUN);
        ref.init(Cipher.ENCRYPT_MODE, key, spec(a, iv));
        Cipher nat = Cipher.getInstance(a.jcaName(), NATIVE);
        nat.init(Cipher.ENCRYPT_MODE, key, spec(a, iv));
        if (a == Algorithm.AES_GCM) {
          ref.updateAAD(aad);
          nat.updateAAD(aad);
        }
        byte[] want = ref.doFinal(text);
        assertArrayEquals(want, chunked(nat, text, rnd), a + " encrypt " + len);
        Cipher dec = Cipher.getInstance(a.jcaName(), NATIVE);
        dec.init(Cipher.DECRYPT_MODE, key, spec(a, iv));
        if (a == Algorithm.AES_GCM) {
          dec.updateAAD(aad);
        }
        assertArrayEquals(text, chunked(dec, want, rnd), a + " decrypt " + len);
        if (a != Algorithm.AES_GCM) {
          // after doFinal the cipher is as after init: the same again
          assertArrayEquals(text, dec.doFinal(want), a + " decrypt again " + len);
        }
      }
    }
  }

  @Test
  void aTamperedGcmMessageReleasesNothing() throws Exception {
    SecretKeySpec key = new SecretKeySpec(new byte[32], "AES");
    byte[] iv = new byte[12];
    Cipher enc = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    enc.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
    enc.updateAAD("header".getBytes());
    byte[] ct = enc.doFinal("attack at dawn".getBytes());
    for (int i = 0; i < ct.length; i++) {
      byte[] bad = ct.clone();
      bad[i] ^= 1;
      Cipher dec = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
      dec.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, iv));
      dec.updateAAD("header".getBytes());
      assertTrue(dec.update(bad).length == 0, "nothing before the tag is checked");
      assertThrows(AEADBadTagException.class, dec::doFinal, "byte " + i);
    }
    Cipher dec = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    dec.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, iv));
    dec.updateAAD("HEADER".getBytes());
    assertThrows(AEADBadTagException.class, () -> dec.doFinal(ct), "other additional data");
    // The same key and IV are refused for a second encryption.
    assertThrows(IllegalStateException.class, () -> enc.doFinal(new byte[1]));
    assertThrows(
        InvalidAlgorithmParameterException.class,
        () -> enc.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv)));
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"AES_GCM", "AES_CTR", "AES_CBC"})
  void outputArraysAtOffsetsAndBuffers(Algorithm a) throws Exception {
    SplittableRandom rnd = new SplittableRandom(11);
    byte[] k = new byte[32];
    rnd.nextBytes(k);
    SecretKeySpec key = new SecretKeySpec(k, "AES");
    for (int len : new int[] {0, 5, 16, 33, 1000}) {
      byte[] iv = new byte[a == Algorithm.AES_GCM ? 12 : 16];
      rnd.nextBytes(iv);
      byte[] text = new byte[len];
      rnd.nextBytes(text);
      Cipher ref = Cipher.getInstance(a.jcaName(), SUN);
      ref.init(Cipher.ENCRYPT_MODE, key, spec(a, iv));
      byte[] want = ref.doFinal(text);
      Cipher nat = Cipher.getInstance(a.jcaName(), NATIVE);
      // into an array at an offset, input at an offset
      nat.init(Cipher.ENCRYPT_MODE, key, spec(a, iv));
      byte[] in = new byte[len + 7];
      System.arraycopy(text, 0, in, 7, len);
      byte[] out = new byte[want.length + 9];
      int n = nat.doFinal(in, 7, len, out, 9);
      assertArrayEquals(want, Arrays.copyOfRange(out, 9, 9 + n), a + " array " + len);
      // too small an output array: ShortBufferException, nothing consumed
      Cipher small = Cipher.getInstance(a.jcaName(), NATIVE);
      small.init(Cipher.ENCRYPT_MODE, key, spec(a, iv));
      if (want.length > 0) {
        assertThrows(
            ShortBufferException.class,
            () -> small.doFinal(text, 0, len, new byte[want.length - 1], 0));
      }
      // direct buffers both ways
      Cipher dec = Cipher.getInstance(a.jcaName(), NATIVE);
      dec.init(Cipher.DECRYPT_MODE, key, spec(a, iv));
      ByteBuffer src = ByteBuffer.allocateDirect(want.length);
      src.put(want).flip();
      ByteBuffer dst = ByteBuffer.allocateDirect(len + 32);
      dec.doFinal(src, dst);
      dst.flip();
      byte[] back = new byte[dst.remaining()];
      dst.get(back);
      assertArrayEquals(text, back, a + " direct buffers " + len);
    }
  }

  @Test
  void oneCipherServesManyPacketsWithFreshIvs() throws Exception {
    // Re-initialising with a new IV keeps the native key schedule; every packet must still be
    // exactly what SunJCE makes, and a key change must take effect.
    SplittableRandom rnd = new SplittableRandom(3);
    Cipher nat = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    Cipher dec = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    Cipher ref = Cipher.getInstance("AES/GCM/NoPadding", SUN);
    for (int i = 0; i < 50; i++) {
      byte[] k = new byte[i < 25 ? 16 : 32];
      rnd.nextBytes(k);
      SecretKeySpec key = new SecretKeySpec(k, "AES");
      byte[] iv = new byte[12];
      rnd.nextBytes(iv);
      byte[] packet = new byte[rnd.nextInt(300)];
      rnd.nextBytes(packet);
      nat.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
      ref.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
      byte[] ct = nat.doFinal(packet);
      assertArrayEquals(ref.doFinal(packet), ct, "packet " + i);
      dec.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, iv));
      assertArrayEquals(packet, dec.doFinal(ct), "packet " + i);
    }
  }

  /**
   * GCM seals and opens a whole packet in one native call, with the additional data held in Java
   * until then. Every way of feeding one cipher pair, reused packet after packet, must give what
   * SunJCE gives: additional data in pieces, decryption input in pieces, a short output array and a
   * retry, in place and overlapping arrays, and a forged packet (refused, output zeroed, and the
   * next packet fine).
   */
  @Test
  void gcmOneCallPathsAgreeWithSunJce() throws Exception {
    SplittableRandom rnd = new SplittableRandom(29);
    byte[] k = new byte[16];
    rnd.nextBytes(k);
    SecretKeySpec key = new SecretKeySpec(k, "AES");
    Cipher enc = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    Cipher dec = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    Cipher ref = Cipher.getInstance("AES/GCM/NoPadding", SUN);
    for (int i = 0; i < 400; i++) {
      byte[] iv = new byte[i % 7 == 0 ? 16 : 12];
      rnd.nextBytes(iv);
      GCMParameterSpec spec = new GCMParameterSpec(96 + 8 * rnd.nextInt(5), iv);
      // small packets go through the cipher's direct buffer, large ones pin the arrays
      byte[] aad = new byte[rnd.nextInt(3) == 0 ? 0 : i % 5 == 0 ? 250 + rnd.nextInt(20) : 50];
      rnd.nextBytes(aad);
      byte[] text = new byte[i % 3 == 0 ? 2040 + rnd.nextInt(20) : rnd.nextInt(600)];
      rnd.nextBytes(text);
      ref.init(Cipher.ENCRYPT_MODE, key, spec);
      ref.updateAAD(aad);
      byte[] want = ref.doFinal(text);
      String what = "packet " + i + " (" + text.length + " B, " + aad.length + " B aad)";

      enc.init(Cipher.ENCRYPT_MODE, key, spec);
      int cut = aad.length == 0 ? 0 : rnd.nextInt(aad.length);
      enc.updateAAD(aad, 0, cut);
      enc.updateAAD(aad, cut, aad.length - cut);
      int shape = rnd.nextInt(3);
      byte[] ct;
      if (shape == 0) { // in place: the text's array receives the ciphertext
        ct = Arrays.copyOf(text, text.length + 16);
        int n = enc.doFinal(ct, 0, text.length, ct, 0);
        ct = Arrays.copyOf(ct, n);
      } else if (shape == 1) { // overlapping, output 3 bytes after the input
        byte[] buf = new byte[text.length + 19];
        System.arraycopy(text, 0, buf, 0, text.length);
        int n = enc.doFinal(buf, 0, text.length, buf, 3);
        ct = Arrays.copyOfRange(buf, 3, 3 + n);
      } else {
        ct = enc.doFinal(text);
      }
      assertArrayEquals(want, ct, what + ", seal shape " + shape);
      byte[] sealed = ct;

      dec.init(Cipher.DECRYPT_MODE, key, spec);
      dec.updateAAD(aad);
      int split = rnd.nextInt(ct.length + 1);
      dec.update(ct, 0, split);
      if (text.length > 0) {
        byte[] tooSmall = new byte[text.length - 1];
        assertThrows(
            ShortBufferException.class,
            () -> dec.doFinal(sealed, split, sealed.length - split, tooSmall, 0),
            what);
      }
      byte[] back = new byte[text.length + 5];
      int n = dec.doFinal(ct, split, ct.length - split, back, 5); // the retry, with room
      assertArrayEquals(text, Arrays.copyOfRange(back, 5, 5 + n), what + ", open");

      if (i % 10 == 0 && text.length > 0) {
        byte[] forged = ct.clone();
        forged[rnd.nextInt(forged.length)] ^= 0x40;
        dec.updateAAD(aad);
        byte[] sink = new byte[text.length];
        Arrays.fill(sink, (byte) 0x55);
        assertThrows(
            AEADBadTagException.class, () -> dec.doFinal(forged, 0, forged.length, sink, 0));
        for (byte b : sink) {
          assertTrue(b == 0 || b == 0x55, what + ": forged text released");
        }
      }
    }
  }

  @Test
  void badInputIsRefusedWithTheRightException() throws Exception {
    SecretKeySpec key = new SecretKeySpec(new byte[16], "AES");
    Cipher cbc = Cipher.getInstance("AES/CBC/PKCS5Padding", NATIVE);
    cbc.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(new byte[16]));
    assertThrows(BadPaddingException.class, () -> cbc.doFinal(new byte[16]));
    assertThrows(
        InvalidKeyException.class,
        () -> cbc.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[20], "AES")));
    assertThrows(
        InvalidAlgorithmParameterException.class,
        () -> cbc.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(new byte[8])));
    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding", NATIVE);
    gcm.init(Cipher.ENCRYPT_MODE, key);
    assertTrue(gcm.getIV().length == 12, "a fresh random IV");
    gcm.update(new byte[3]);
    assertThrows(IllegalStateException.class, () -> gcm.updateAAD(new byte[1]));
  }
}
