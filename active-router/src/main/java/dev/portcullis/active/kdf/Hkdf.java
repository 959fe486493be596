package dev.portcullis.active.kdf;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.util.Arrays;
import java.util.Objects;

/**
 * HKDF (RFC 5869) over an HMAC that the provider registry serves. {@link #extract} once per input
 * key, then {@link #expand} as often as needed from the pseudorandom key it returns.
 */
final class Hkdf {
  private final CryptoRegistry registry;
  private final Algorithm hmac;

  public Hkdf(CryptoRegistry registry, Algorithm hmac) {
    if (hmac.kind() != Algorithm.Kind.MAC) {
      throw new IllegalArgumentException("HKDF needs an HMAC, not " + hmac);
    }
    this.registry = Objects.requireNonNull(registry, "registry");
    this.hmac = hmac;
  }

  public Algorithm hmac() {
    return hmac;
  }

  /** Longest output {@link #expand} gives: 255 blocks (RFC 5869 section 2.3). */
  public int maxOutputLength() {
    return 255 * hmac.outputLength();
  }

  /**
   * HKDF-Extract: the pseudorandom key, as a MAC key for {@link #expand}. An empty or null salt
   * means HashLen zero bytes (RFC 5869 section 2.2), which is what HMAC makes of an empty key.
   */
  public MacKey extract(byte[] salt, byte[] ikm) {
    byte[] s =
        salt == null || salt.length == 0 ? new byte[hmac.outputLength()] : salt; // RFC 5869 2.2
    MacKey saltKey = registry.macKey(hmac, s);
    byte[] prk = new byte[hmac.outputLength()];
    try {
      saltKey.compute(ikm, 0, ikm.length, prk, 0);
      return registry.macKey(hmac, prk);
    } finally {
      saltKey.destroy();
      Arrays.fill(prk, (byte) 0);
    }
  }

  /**
   * HKDF-Expand: {@code length} bytes of output keying material into {@code out[outOff...]}.
   *
   * @throws IllegalArgumentException if {@code length} is above {@link #maxOutputLength()}
   */
  public void expand(
      MacKey prk, byte[] info, int infoOff, int infoLen, byte[] out, int outOff, int length) {
    if (length < 0 || length > maxOutputLength()) {
      throw new IllegalArgumentException(
          "HKDF output length: " + length + " (expected: 0 to " + maxOutputLength() + ")");
    }
    Objects.checkFromIndexSize(infoOff, infoLen, info.length);
    Objects.checkFromIndexSize(outOff, length, out.length);
    int h = hmac.outputLength();
    // T(i) = HMAC(PRK, T(i-1) | info | i), T(0) empty; block holds T(i-1) | info | i.
    byte[] block = new byte[h + infoLen + 1];
    System.arraycopy(info, infoOff, block, h, infoLen);
    byte[] t = new byte[h];
    try {
      int done = 0;
      for (int i = 1; done < length; i++) {
        int from = i == 1 ? h : 0;
        block[h + infoLen] = (byte) i;
        prk.compute(block, from, block.length - from, t, 0);
        int n = Math.min(h, length - done);
        System.arraycopy(t, 0, out, outOff + done, n);
        System.arraycopy(t, 0, block, 0, h);
        done += n;
      }
    } finally {
      Arrays.fill(block, (byte) 0);
      Arrays.fill(t, (byte) 0);
    }
  }

  /** Extract then expand, for tests and tools. */
  public byte[] derive(byte[] salt, byte[] ikm, byte[] info, int length) {
    if (length < 0 || length > maxOutputLength()) {
      throw new IllegalArgumentException(
          "HKDF output length: " + length + " (expected: 0 to " + maxOutputLength() + ")");
    }
    MacKey prk = extract(salt, ikm);
    try {
      byte[] out = new byte[length];
      expand(prk, info, 0, info.length, out, 0, length);
      return out;
    } finally {
      prk.destroy();
    }
  }
}
