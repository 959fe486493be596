package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.Algorithm;
import dev.portcullis.crypto.kat.KnownAnswerTests;
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
    SelfTestResult r = KnownAnswerTests.run(NATIVE, a);
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
