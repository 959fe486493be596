package dev.portcullis.nativecrypto;

import java.util.Arrays;

/**
 * GCM with an IV longer than OpenSSL 3 accepts (128 bytes), through OpenSSL all the same. GCM uses
 * its IV only through the pre-counter block J0 = GHASH_H(IV || padding || [len(IV)]_64) (NIST SP
 * 800-38D, section 7.1), so any IV with the same J0 gives the same ciphertext and tag. This finds
 * the 16-byte IV B with GHASH_H(B || [128]_64) = J0, that is B = (J0 + L.H) / H^2 in GF(2^128), and
 * OpenSSL then computes exactly the J0 of the long IV. H = AES_K(0^128) comes from the native
 * AES-CTR with a zero counter. A handful of field operations per init, only for such IVs; every
 * value derived from the key is wiped after use.
 */
final class GcmLongIv {
  /** The longest GCM IV OpenSSL 3's default provider takes (GCM_IV_MAX_SIZE). */
  static final int OPENSSL_MAX_IV = 128;

  private static final int CTR = 2; // NativeCrypto's mode number for AES-CTR

  private GcmLongIv() {}

  /** The 16-byte IV with the same J0 as {@code iv} under {@code key}. */
  static byte[] equivalent(byte[] key, byte[] iv) {
    long[] h = hashSubkey(key);
    long[] j0 = new long[2];
    byte[] block = new byte[16];
    for (int off = 0; off < iv.length; off += 16) {
      Arrays.fill(block, (byte) 0);
      System.arraycopy(iv, off, block, 0, Math.min(16, iv.length - off));
      j0 = mul(xor(j0, toLongs(block)), h);
    }
    j0 = mul(xor(j0, new long[] {0, (long) iv.length * 8}), h);
    long[] lh = mul(new long[] {0, 128}, h); // the length block of a 16-byte IV, times H
    long[] hInverse = inverse(h);
    long[] b = mul(xor(j0, lh), mul(hInverse, hInverse));
    byte[] out = toBytes(b);
    wipe(h, j0, lh, hInverse, b);
    Arrays.fill(block, (byte) 0);
    return out;
  }

  /** H = AES_K(0^128): the first block of AES-CTR's key stream from a zero counter. */
  private static long[] hashSubkey(byte[] key) {
    long ctx = NativeCrypto.cipherNew(CTR, true, key, new byte[16]);
    byte[] h = new byte[16];
    try {
      NativeCrypto.cipherUpdate(ctx, new byte[16], 0, 16, h, 0);
      return toLongs(h);
    } finally {
      NativeCrypto.cipherFree(ctx);
      Arrays.fill(h, (byte) 0);
    }
  }

  /**
   * Multiplication in GCM's GF(2^128) (SP 800-38D, algorithm 1): bit 0 is the most significant bit
   * of the first byte; {@code [0]} holds bytes 0 to 7, {@code [1]} bytes 8 to 15.
   */
  static long[] mul(long[] x, long[] y) {
    long zHi = 0;
    long zLo = 0;
    long vHi = y[0];
    long vLo = y[1];
    for (int i = 0; i < 128; i++) {
      long bit = i < 64 ? x[0] >>> (63 - i) : x[1] >>> (127 - i);
      long mask = -(bit & 1); // all ones when the bit is set: no branch on key-derived bits
      zHi ^= vHi & mask;
      zLo ^= vLo & mask;
      long carry = -(vLo & 1);
      vLo = (vLo >>> 1) | (vHi << 63);
      vHi = (vHi >>> 1) ^ (0xE100000000000000L & carry);
    }
    return new long[] {zHi, zLo};
  }

  /** x^-1 = x^(2^128 - 2): x^(2^127 - 1) by 126 square-and-multiply steps, then squared. */
  static long[] inverse(long[] x) {
    long[] t = x;
    for (int i = 0; i < 126; i++) {
      t = mul(mul(t, t), x);
    }
    return mul(t, t);
  }

  private static long[] xor(long[] a, long[] b) {
    return new long[] {a[0] ^ b[0], a[1] ^ b[1]};
  }

  static long[] toLongs(byte[] b) {
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < 8; i++) {
      hi = (hi << 8) | (b[i] & 0xFF);
      lo = (lo << 8) | (b[i + 8] & 0xFF);
    }
    return new long[] {hi, lo};
  }

  static byte[] toBytes(long[] v) {
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (v[0] >>> (56 - 8 * i));
      b[i + 8] = (byte) (v[1] >>> (56 - 8 * i));
    }
    return b;
  }

  private static void wipe(long[]... values) {
    for (long[] v : values) {
      Arrays.fill(v, 0);
    }
  }
}
