package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Exercises every selection of a table before it is published, through the same hot-path classes
 * real work uses, so the first packet does not pay for provider initialisation, class loading and
 * the first key schedule (ROSA measured the first HMAC at 60 times a later one).
 */
final class Prewarmer {
  /** Operations per algorithm and buffer shape: enough to load and link every class on the path. */
  static final int ROUNDS = 64;

  private static final int[] SIZES = {0, 64, 1500};

  private Prewarmer() {}

  static void warm(ProviderTable table) {
    Supplier<ProviderTable> fixed = () -> table;
    SecureRandom random = new SecureRandom();
    byte[] key = new byte[32];
    random.nextBytes(key);
    for (Selection s : table.selections().values()) {
      try {
        warm(s.algorithm(), key, fixed);
      } catch (GeneralSecurityException | RuntimeException e) {
        // The provider passed its known-answer tests, so this should not happen; a warm-up
        // failure must not block the table, the first real operation will report the problem.
        org.slf4j.LoggerFactory.getLogger(Prewarmer.class)
            .warn("pre-warming {} on {} failed: {}", s.algorithm(), s.providerName(), e.toString());
      }
    }
    Arrays.fill(key, (byte) 0);
  }

  private static void warm(Algorithm a, byte[] key, Supplier<ProviderTable> table)
      throws GeneralSecurityException {
    byte[] buf = new byte[SIZES[SIZES.length - 1] + 64];
    ByteBuffer direct = ByteBuffer.allocateDirect(buf.length);
    switch (a.kind()) {
      case MAC:
        {
          MacKey k = new MacKey(a, key, 0, 32, table);
          byte[] tag = new byte[k.macLength()];
          for (int r = 0; r < ROUNDS; r++) {
            for (int size : SIZES) {
              k.compute(buf, 0, size, tag, 0);
              k.verify(buf, 0, size, tag, 0, tag.length);
              direct.clear().limit(size);
              k.compute(direct, tag, 0);
            }
          }
          k.destroy();
          break;
        }
      case CIPHER:
        {
          CipherKey k = new CipherKey(a, key, 0, 16, table);
          byte[] iv = new byte[a == Algorithm.AES_GCM ? CipherKey.GCM_NONCE_LENGTH : 16];
          byte[] out = new byte[k.outputSize(true, buf.length)];
          byte[] back = new byte[out.length];
          for (int r = 0; r < ROUNDS; r++) {
            for (int size : SIZES) {
              // A fresh nonce per encryption: SunJCE refuses key and nonce reuse, as it should.
              iv[0] = (byte) r;
              iv[1] = (byte) size;
              iv[2] = (byte) (size >>> 8);
              int n = k.encrypt(iv, null, buf, 0, size, out, 0);
              k.decrypt(iv, null, out, 0, n, back, 0);
            }
          }
          k.destroy();
          break;
        }
      case DIGEST:
        {
          Digester d = new Digester(a, table);
          byte[] out = new byte[d.digestLength()];
          for (int r = 0; r < ROUNDS; r++) {
            for (int size : SIZES) {
              d.digest(buf, 0, size, out, 0);
            }
          }
          break;
        }
      default:
        throw new AssertionError(a.kind());
    }
  }
}
