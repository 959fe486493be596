package dev.portcullis.nativecrypto;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.Provider;
import java.security.spec.AlgorithmParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Random keys, parameters, lengths and call sequences against PortcullisNative's {@code Cipher} and
 * {@code Mac}: whatever the input, a JCE method answers or throws a checked exception (or the
 * {@code IllegalStateException} the JCE contract names for a call out of order); never another
 * unchecked exception, never a crash. Deterministic (seeded), so a failure reproduces.
 */
class JceContractFuzzTest {
  private static Provider ours;

  @BeforeAll
  static void load() {
    NativeCrypto.ensureAvailability();
    ours = new PortcullisNativeProvider();
  }

  private static byte[] bytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt();
    }
    return b;
  }

  private static int length(SplittableRandom r) {
    // Mostly small, sometimes block edges, sometimes large.
    return switch (r.nextInt(4)) {
      case 0 -> r.nextInt(17);
      case 1 -> 16 * r.nextInt(1, 5) + r.nextInt(-1, 2);
      case 2 -> r.nextInt(300);
      default -> r.nextInt(5000);
    };
  }

  @Test
  void ciphersNeverLeakAnUncheckedException() {
    SplittableRandom r = new SplittableRandom(2026);
    String[] transformations = {"AES/GCM/NoPadding", "AES/CTR/NoPadding", "AES/CBC/PKCS5Padding"};
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < 3000 && failures.size() < 10; i++) {
      String t = transformations[r.nextInt(3)];
      int keyLen = r.nextInt(5) == 0 ? r.nextInt(40) : new int[] {16, 24, 32}[r.nextInt(3)];
      int ivLen = r.nextInt(4) == 0 ? r.nextInt(300) : t.contains("GCM") ? 12 : 16;
      int tagBits = r.nextInt(4) == 0 ? r.nextInt(160) : 128;
      int mode = r.nextBoolean() ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
      String what = t + " key " + keyLen + " iv " + ivLen + " tag " + tagBits + " mode " + mode;
      try {
        Cipher c = Cipher.getInstance(t, ours);
        Key k = new AnyKey("AES", bytes(r, keyLen));
        AlgorithmParameterSpec spec =
            t.contains("GCM")
                ? new GCMParameterSpec(tagBits, bytes(r, ivLen))
                : new IvParameterSpec(bytes(r, ivLen));
        c.init(mode, k, r.nextInt(8) == 0 ? null : spec);
        for (int step = r.nextInt(4); step >= 0; step--) {
          byte[] in = bytes(r, length(r));
          switch (r.nextInt(5)) {
            case 0 -> c.update(in);
            case 1 -> c.updateAAD(in);
            case 2 -> c.doFinal(in);
            case 3 -> c.doFinal(ByteBuffer.wrap(in), ByteBuffer.allocate(in.length + 64));
            default -> c.update(ByteBuffer.wrap(in), ByteBuffer.allocateDirect(in.length + 64));
          }
        }
      } catch (GeneralSecurityException | IllegalStateException e) {
        // the contract's answers: bad key or parameters, a bad tag or padding, a short buffer,
        // or a call out of order (AAD after text, encryption again under the same IV)
      } catch (RuntimeException e) {
        failures.add(what + ": " + e);
      }
    }
    assertTrue(failures.isEmpty(), failures.toString());
  }

  @Test
  void macsNeverLeakAnUncheckedException() {
    SplittableRandom r = new SplittableRandom(4231);
    String[] algorithms = {"HmacSHA256", "HmacSHA1", "HmacMD5", "HmacSHA384", "HmacSHA512"};
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < 3000 && failures.size() < 10; i++) {
      String a = algorithms[r.nextInt(algorithms.length)];
      int keyLen = r.nextInt(300);
      try {
        Mac m = Mac.getInstance(a, ours);
        m.init(new AnyKey(a, bytes(r, keyLen)));
        for (int step = r.nextInt(4); step >= 0; step--) {
          byte[] in = bytes(r, length(r));
          switch (r.nextInt(4)) {
            case 0 -> m.update(in);
            case 1 -> m.update(ByteBuffer.wrap(in));
            case 2 -> m.update(ByteBuffer.allocateDirect(in.length).put(in).flip());
            default -> m.doFinal(in);
          }
        }
        m.doFinal();
      } catch (GeneralSecurityException | IllegalStateException e) {
        // bad key, or a call out of order
      } catch (RuntimeException e) {
        failures.add(a + " key " + keyLen + ": " + e);
      }
    }
    assertTrue(failures.isEmpty(), failures.toString());
  }
}
