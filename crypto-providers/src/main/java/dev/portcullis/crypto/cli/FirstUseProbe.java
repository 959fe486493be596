package dev.portcullis.crypto.cli;

import dev.portcullis.crypto.Algorithm;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.config.CryptoConfig;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs in a fresh JVM started by {@link FirstUseCommand}: opens the registry with the given
 * switches, then times the first, second and steady-state operation of one algorithm on a 64-byte
 * packet. Prints one {@code RESULT} line; the parent aggregates.
 */
public final class FirstUseProbe {
  private static final int PACKET = 64;
  private static final int STEADY = 2000;

  private FirstUseProbe() {}

  public static void main(String[] args) throws Exception {
    Path configFile = Path.of(args[0]);
    Algorithm a = Algorithm.ofJcaName(args[1]);
    boolean selfTest = Boolean.parseBoolean(args[2]);
    boolean prewarm = Boolean.parseBoolean(args[3]);
    CryptoConfig config =
        CryptoConfig.load(configFile).toBuilder().selfTest(selfTest).prewarm(prewarm).build();

    long t0 = System.nanoTime();
    CryptoRegistry r = CryptoRegistry.create(config);
    long startup = System.nanoTime() - t0;

    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 7);
    byte[] packet = new byte[PACKET];
    long first = op(r, a, key, packet, 0);
    long second = op(r, a, key, packet, 1);
    long[] steady = new long[STEADY];
    for (int i = 0; i < STEADY; i++) {
      steady[i] = op(r, a, key, packet, 2 + i);
    }
    Arrays.sort(steady);
    System.out.printf(
        "RESULT %s %s %d %d %d %d%n",
        a.jcaName(),
        r.providerFor(a),
        startup / 1000,
        first / 1000,
        second / 1000,
        steady[STEADY / 2]);
  }

  /**
   * One operation as a packet path sees it: make the keyed handle (a new flow's session key), then
   * use it once. Returns nanoseconds.
   */
  private static long op(CryptoRegistry r, Algorithm a, byte[] key, byte[] packet, int seq)
      throws Exception {
    long t = System.nanoTime();
    switch (a.kind()) {
      case MAC:
        {
          MacKey k = r.macKey(a, key);
          byte[] tag = k.compute(packet);
          k.destroy();
          sink ^= tag[0];
          break;
        }
      case CIPHER:
        {
          CipherKey k = r.cipherKey(a, Arrays.copyOf(key, 16));
          byte[] iv = new byte[a == Algorithm.AES_GCM ? 12 : 16];
          iv[0] = (byte) seq;
          iv[1] = (byte) (seq >>> 8);
          byte[] ct = k.encrypt(iv, null, packet);
          k.destroy();
          sink ^= ct[0];
          break;
        }
      default:
        {
          Digester d = r.digester(a);
          sink ^= d.digest(packet)[0];
          break;
        }
    }
    return System.nanoTime() - t;
  }

  static volatile int sink;
}
