package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.Provider;
import java.util.SplittableRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GCM IVs longer than OpenSSL takes, against SunJCE; and the field arithmetic behind them. */
class GcmLongIvTest {
  private static Provider ours;

  @BeforeAll
  static void load() {
    NativeCrypto.ensureAvailability();
    ours = new PortcullisNativeProvider();
  }

  @Test
  void aTimesItsInverseIsOne() {
    SplittableRandom r = new SplittableRandom(1);
    long[] one = {0x8000000000000000L, 0}; // the polynomial 1: bit 0 is the first bit
    for (int i = 0; i < 20; i++) {
      long[] x = {r.nextLong(), r.nextLong()};
      assertArrayEquals(one, GcmLongIv.mul(x, GcmLongIv.inverse(x)));
      assertArrayEquals(x, GcmLongIv.mul(x, one));
    }
  }

  @Test
  void longIvsSealAndOpenAsSunJceDoes() throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 60; i++) {
      byte[] key = new byte[new int[] {16, 24, 32}[i % 3]];
      byte[] iv = new byte[129 + r.nextInt(600)];
      byte[] aad = new byte[r.nextInt(40)];
      byte[] msg = new byte[r.nextInt(100)];
      for (byte[] b : new byte[][] {key, iv, aad, msg}) {
        for (int j = 0; j < b.length; j++) {
          b[j] = (byte) r.nextInt();
        }
      }
      byte[] expected = seal(Cipher.getInstance("AES/GCM/NoPadding", "SunJCE"), key, iv, aad, msg);
      byte[] actual = seal(Cipher.getInstance("AES/GCM/NoPadding", ours), key, iv, aad, msg);
      assertArrayEquals(expected, actual, "IV of " + iv.length + " bytes");
      Cipher open = Cipher.getInstance("AES/GCM/NoPadding", ours);
      open.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
      open.updateAAD(aad);
      assertArrayEquals(msg, open.doFinal(actual));
      actual[actual.length - 1] ^= 1;
      open.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
      open.updateAAD(aad);
      byte[] forged = actual;
      assertThrows(AEADBadTagException.class, () -> open.doFinal(forged));
    }
  }

  private static byte[] seal(Cipher c, byte[] key, byte[] iv, byte[] aad, byte[] msg)
      throws Exception {
    c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
    c.updateAAD(aad);
    return c.doFinal(msg);
  }
}
