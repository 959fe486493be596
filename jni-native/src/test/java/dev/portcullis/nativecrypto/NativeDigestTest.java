package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.kat.KnownAnswers;
import dev.portcullis.crypto.kat.SelfTestResult;
import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.Provider;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** SHA-256 and SHA-512: known answers and agreement with the JDK's SUN provider. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeDigestTest {
  static final Provider NATIVE = new PortcullisNativeProvider();

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"SHA_256", "SHA_512"})
  void knownAnswers(Algorithm a) {
    // FIPS 180-4 examples, the registry's admission vectors.
    SelfTestResult r = KnownAnswers.run(NATIVE, a);
    assertTrue(r.passed(), a + ": " + r.detail());
    assertTrue(r.vectors() > 0);
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"SHA_256", "SHA_512"})
  void agreesWithSun(Algorithm a) throws Exception {
    SplittableRandom rnd = new SplittableRandom(7);
    MessageDigest ref = MessageDigest.getInstance(a.jcaName(), "SUN");
    MessageDigest nat = MessageDigest.getInstance(a.jcaName(), NATIVE);
    for (int len : NativeHmacTest.LENGTHS) {
      int off = rnd.nextInt(9);
      byte[] buf = new byte[off + len + 3];
      rnd.nextBytes(buf);
      ref.update(buf, off, len);
      byte[] want = ref.digest();
      nat.update(buf, off, len);
      assertArrayEquals(want, nat.digest(), "len " + len);
      for (int i = off; i < off + len; ) {
        int n = Math.min(off + len - i, 1 + rnd.nextInt(200));
        if (n == 1) {
          nat.update(buf[i]);
        } else {
          nat.update(buf, i, n);
        }
        i += n;
      }
      MessageDigest copy = (MessageDigest) nat.clone();
      assertArrayEquals(want, nat.digest(), "chunked, len " + len);
      assertArrayEquals(want, copy.digest(), "clone, len " + len);
      ByteBuffer direct = ByteBuffer.allocateDirect(len);
      direct.put(buf, off, len).flip();
      nat.update(direct);
      assertArrayEquals(want, nat.digest(), "direct, len " + len);
      nat.update(ByteBuffer.wrap(buf, off, len));
      byte[] into = new byte[want.length + 2];
      nat.digest(into, 2, want.length);
      assertArrayEquals(want, Arrays.copyOfRange(into, 2, into.length));
      nat.update(buf, 0, Math.min(3, buf.length));
      nat.reset();
    }
    assertThrows(DigestException.class, () -> nat.digest(new byte[8], 0, 8));
  }
}
