package dev.portcullis.crypto.cli;

import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
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
    byte[] out = new byte[64 + 16];
    byte[] iv = new byte[a == Algorithm.AES_GCM ? 12 : 16];
    // First packet of a new flow: make the keyed handle, then use it. No lambdas or new classes
    // in the probe itself, so the figures are the registry's and the provider's alone.
    long t = System.nanoTime();
    Object h = handle(r, a, key);
    run(h, packet, out, iv, 0);
    long first = System.nanoTime() - t;
    t = System.nanoTime();
    run(h, packet, out, iv, 1);
    long second = System.nanoTime() - t;
    long[] steady = new long[STEADY];
    for (int i = 0; i < STEADY; i++) {
      t = System.nanoTime();
      run(h, packet, out, iv, 2 + i);
      steady[i] = System.nanoTime() - t;
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

  private static Object handle(CryptoRegistry r, Algorithm a, byte[] key) {
    // if/else, not a switch on the enum: a switch would load a synthetic class inside the
    // timed region and charge it to the registry.
    if (a.kind() == Algorithm.Kind.MAC) {
      return r.macKey(a, key);
    } else if (a.kind() == Algorithm.Kind.CIPHER) {
      return r.cipherKey(a, Arrays.copyOf(key, 16));
    } else {
      return r.digester(a);
    }
  }

  private static void run(Object h, byte[] packet, byte[] out, byte[] iv, int seq)
      throws Exception {
    if (h instanceof MacKey) {
      sink ^= ((MacKey) h).compute(packet, 0, PACKET, out, 0);
    } else if (h instanceof CipherKey) {
      iv[0] = (byte) seq; // a fresh nonce per packet
      iv[1] = (byte) (seq >>> 8);
      sink ^= ((CipherKey) h).encrypt(iv, null, packet, 0, PACKET, out, 0);
    } else {
      sink ^= ((Digester) h).digest(packet, 0, PACKET, out, 0);
    }
  }

  static volatile int sink;
}
