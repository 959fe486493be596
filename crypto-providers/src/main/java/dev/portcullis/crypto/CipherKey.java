package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.security.auth.Destroyable;

/**
 * An AES key bound to the registry: encrypts and decrypts with whichever provider the current table
 * chooses for the mode, through pooled {@link Cipher}s (no {@code getInstance} per call).
 * Thread-safe.
 *
 * <p>AES-GCM takes a 12-byte nonce and optional associated data; output is ciphertext followed by
 * the 16-byte tag, and decryption throws {@link AEADBadTagException} when the tag does not verify.
 * AES-CTR and AES-CBC take a 16-byte IV and no associated data. The caller owns nonce uniqueness;
 * SunJCE additionally refuses to encrypt twice in a row with the same key and nonce.
 */
public final class CipherKey implements Destroyable {
  /** AES-GCM nonce length Portcullis uses (NIST SP 800-38D section 8.2.1). */
  public static final int GCM_NONCE_LENGTH = 12;

  /** AES-GCM tag length in bytes. */
  public static final int GCM_TAG_LENGTH = 16;

  /** AES block and CTR/CBC IV length. */
  public static final int AES_BLOCK = 16;

  private final RawKey key;
  private final Pool pool;

  CipherKey(Algorithm algorithm, byte[] key, int off, int len, Supplier<ProviderTable> tables) {
    if (algorithm.kind() != Algorithm.Kind.CIPHER) {
      throw new IllegalArgumentException("algorithm: " + algorithm + " (expected: a cipher)");
    }
    Objects.checkFromIndexSize(off, len, key.length);
    if (len != 16 && len != 24 && len != 32) {
      throw new IllegalArgumentException("key: " + len + " bytes (expected: 16, 24 or 32 for AES)");
    }
    this.key = new RawKey("AES", key, off, len);
    this.pool = new Pool(algorithm, tables);
    pool.current();
  }

  public Algorithm algorithm() {
    return pool.algorithm;
  }

  /** The provider that new operations are served by now. */
  public String provider() {
    return pool.current().providerName();
  }

  /** Bytes of output for {@code inputLen} bytes of input (an upper bound for CBC decryption). */
  public int outputSize(boolean encrypt, int inputLen) {
    switch (pool.algorithm) {
      case AES_GCM:
        return encrypt ? inputLen + GCM_TAG_LENGTH : Math.max(0, inputLen - GCM_TAG_LENGTH);
      case AES_CBC:
        return encrypt ? (inputLen / AES_BLOCK + 1) * AES_BLOCK : inputLen;
      default:
        return inputLen;
    }
  }

  /** Encrypts {@code in}; {@code aad} must be null except for AES-GCM. */
  public byte[] encrypt(byte[] iv, byte[] aad, byte[] in) throws GeneralSecurityException {
    byte[] out = new byte[outputSize(true, in.length)];
    int n = encrypt(iv, aad, in, 0, in.length, out, 0);
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /** Decrypts {@code in}; for AES-GCM throws {@link AEADBadTagException} on a bad tag. */
  public byte[] decrypt(byte[] iv, byte[] aad, byte[] in) throws GeneralSecurityException {
    byte[] out = new byte[outputSize(false, in.length)];
    int n = decrypt(iv, aad, in, 0, in.length, out, 0);
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /**
   * Encrypts {@code in[off, off+len)} into {@code out} at {@code outOff}; returns bytes written.
   */
  public int encrypt(byte[] iv, byte[] aad, byte[] in, int off, int len, byte[] out, int outOff)
      throws GeneralSecurityException {
    return run(Cipher.ENCRYPT_MODE, iv, aad, in, off, len, out, outOff);
  }

  /**
   * Decrypts {@code in[off, off+len)} into {@code out} at {@code outOff}; returns bytes written.
   */
  public int decrypt(byte[] iv, byte[] aad, byte[] in, int off, int len, byte[] out, int outOff)
      throws GeneralSecurityException {
    return run(Cipher.DECRYPT_MODE, iv, aad, in, off, len, out, outOff);
  }

  /** Encrypts the remaining bytes of {@code in} into {@code out} (heap or direct buffers). */
  public int encrypt(byte[] iv, byte[] aad, ByteBuffer in, ByteBuffer out)
      throws GeneralSecurityException {
    return run(Cipher.ENCRYPT_MODE, iv, aad, in, out);
  }

  /** Decrypts the remaining bytes of {@code in} into {@code out} (heap or direct buffers). */
  public int decrypt(byte[] iv, byte[] aad, ByteBuffer in, ByteBuffer out)
      throws GeneralSecurityException {
    return run(Cipher.DECRYPT_MODE, iv, aad, in, out);
  }

  private void checkCiphertext(int mode, int len) throws GeneralSecurityException {
    if (mode == Cipher.DECRYPT_MODE && !pool.algorithm.plausibleCiphertextLength(len)) {
      String msg =
          "ciphertext: "
              + len
              + " bytes (expected: "
              + (pool.algorithm == Algorithm.AES_GCM
                  ? "at least the " + GCM_TAG_LENGTH + "-byte tag"
                  : "a positive multiple of " + AES_BLOCK)
              + " for "
              + pool.algorithm
              + ")";
      throw pool.algorithm == Algorithm.AES_GCM
          ? new AEADBadTagException(msg)
          : new IllegalBlockSizeException(msg);
    }
  }

  private int run(
      int mode, byte[] iv, byte[] aad, byte[] in, int off, int len, byte[] out, int outOff)
      throws GeneralSecurityException {
    Objects.checkFromIndexSize(off, len, in.length);
    checkCiphertext(mode, len);
    Objects.checkFromIndexSize(outOff, outputSize(mode == Cipher.ENCRYPT_MODE, len), out.length);
    AlgorithmParameterSpec spec = spec(iv, aad);
    EnginePool.Slot<Cipher> s = pool.acquire();
    int n;
    try {
      Cipher c = s.engine;
      c.init(mode, key, spec);
      if (aad != null && aad.length > 0) {
        c.updateAAD(aad);
      }
      n = c.doFinal(in, off, len, out, outOff);
    } catch (AEADBadTagException e) {
      // The expected failure of a forged packet: the cipher is reusable after a failed doFinal.
      pool.release(s);
      throw e;
    } catch (GeneralSecurityException | RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  private int run(int mode, byte[] iv, byte[] aad, ByteBuffer in, ByteBuffer out)
      throws GeneralSecurityException {
    checkCiphertext(mode, in.remaining());
    AlgorithmParameterSpec spec = spec(iv, aad);
    EnginePool.Slot<Cipher> s = pool.acquire();
    int n;
    try {
      Cipher c = s.engine;
      c.init(mode, key, spec);
      if (aad != null && aad.length > 0) {
        c.updateAAD(aad);
      }
      n = c.doFinal(in, out);
    } catch (AEADBadTagException e) {
      pool.release(s);
      throw e;
    } catch (GeneralSecurityException | RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  private AlgorithmParameterSpec spec(byte[] iv, byte[] aad) {
    Objects.requireNonNull(iv, "iv");
    if (pool.algorithm == Algorithm.AES_GCM) {
      if (iv.length != GCM_NONCE_LENGTH) {
        throw new IllegalArgumentException(
            "iv: " + iv.length + " bytes (expected: " + GCM_NONCE_LENGTH + " for AES-GCM)");
      }
      return new GCMParameterSpec(GCM_TAG_LENGTH * 8, iv);
    }
    if (iv.length != AES_BLOCK) {
      throw new IllegalArgumentException(
          "iv: " + iv.length + " bytes (expected: " + AES_BLOCK + " for " + pool.algorithm + ")");
    }
    if (aad != null && aad.length > 0) {
      throw new IllegalArgumentException(
          "aad: " + aad.length + " bytes (expected: none, " + pool.algorithm + " is not an AEAD)");
    }
    return new IvParameterSpec(iv);
  }

  /** Wipes the key and releases the pooled ciphers; later use throws. */
  @Override
  public void destroy() {
    pool.close();
    key.destroy();
  }

  @Override
  public boolean isDestroyed() {
    return key.isDestroyed();
  }

  @Override
  public String toString() {
    return "CipherKey[" + pool.algorithm + ", " + key.length() * 8 + "-bit]";
  }

  private static final class Pool extends EnginePool<Cipher> {
    Pool(Algorithm algorithm, Supplier<ProviderTable> tables) {
      super(algorithm, tables);
    }

    @Override
    Cipher create(Selection sel) throws GeneralSecurityException {
      // Keyed per operation (the IV changes every time); the pool saves the provider lookup.
      return Cipher.getInstance(algorithm.jcaName(), sel.provider());
    }
  }
}
