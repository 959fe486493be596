package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.InvalidParameterSpecException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;

/**
 * What the native AES ciphers share, over OpenSSL's EVP with 128-, 192- and 256-bit keys: the JCE's
 * init semantics (a RAW key, a fresh random IV when encrypting without one, parameters in and out)
 * and the native context, kept across inits while key, direction and IV length stay the same (a
 * packet per init costs no key expansion). The modes are subclasses, as ACCP splits them: {@link
 * NativeAesGcmSpi} (an AEAD, a packet per native call) and {@link NativeAesStreamSpi} (CTR and CBC,
 * streaming through update).
 */
abstract class NativeAesSpi extends CipherSpi {

  final AesMode mode;
  Handle handle;
  private byte[] handleKey; // the key, direction and IV length the handle was made with
  private boolean handleEncrypt;
  private int handleIvLength;
  boolean encrypt;
  byte[] key;
  byte[] iv;
  byte[] nativeIv; // what OpenSSL is given: iv, or (GCM) its 16-byte equivalent

  /** The EVP context, freed like every native handle. */
  static final class Handle extends NativeHandle {
    Handle(long ptr) {
      super(ptr, NativeCrypto::cipherFree);
    }
  }

  NativeAesSpi(AesMode mode) {
    this.mode = mode;
  }

  @Override
  protected final void engineSetMode(String m) throws NoSuchAlgorithmException {
    if (!mode.jcaName.equalsIgnoreCase(m)) {
      throw new NoSuchAlgorithmException("mode " + m + " (this is AES/" + mode.jcaName + ")");
    }
  }

  @Override
  protected final void engineSetPadding(String p) throws NoSuchPaddingException {
    if (!mode.padding.equalsIgnoreCase(p)) {
      throw new NoSuchPaddingException("padding " + p + " (this is " + mode.padding + ")");
    }
  }

  @Override
  protected final int engineGetBlockSize() {
    return 16;
  }

  @Override
  protected final byte[] engineGetIV() {
    return iv == null ? null : iv.clone();
  }

  @Override
  protected final AlgorithmParameters engineGetParameters() {
    if (iv == null) {
      return null;
    }
    try {
      AlgorithmParameters p = AlgorithmParameters.getInstance(parametersAlgorithm());
      p.init(parameterSpec());
      return p;
    } catch (NoSuchAlgorithmException | InvalidParameterSpecException e) {
      return null;
    }
  }

  /** The name of the mode's {@link AlgorithmParameters} ("GCM", "AES"). */
  abstract String parametersAlgorithm();

  /** The current IV (and tag length) as the mode's parameter spec. */
  abstract AlgorithmParameterSpec parameterSpec();

  /** The parameter spec class the mode takes from {@link AlgorithmParameters}. */
  abstract Class<? extends AlgorithmParameterSpec> parameterSpecClass();

  @Override
  protected final void engineInit(int opmode, Key k, SecureRandom random)
      throws InvalidKeyException {
    try {
      engineInit(opmode, k, (AlgorithmParameterSpec) null, random);
    } catch (InvalidAlgorithmParameterException e) {
      throw new InvalidKeyException(e.getMessage(), e);
    }
  }

  @Override
  protected final void engineInit(
      int opmode, Key k, AlgorithmParameters params, SecureRandom random)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    AlgorithmParameterSpec spec = null;
    if (params != null) {
      try {
        spec = params.getParameterSpec(parameterSpecClass());
      } catch (InvalidParameterSpecException e) {
        throw new InvalidAlgorithmParameterException("parameters: " + e.getMessage(), e);
      }
    }
    engineInit(opmode, k, spec, random);
  }

  @Override
  protected final void engineInit(
      int opmode, Key k, AlgorithmParameterSpec params, SecureRandom random)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    boolean enc = opmode == Cipher.ENCRYPT_MODE || opmode == Cipher.WRAP_MODE;
    byte[] raw = k == null ? null : k.getEncoded();
    if (raw == null || !"RAW".equalsIgnoreCase(k.getFormat())) {
      throw new InvalidKeyException("AES needs a key in RAW format");
    }
    if (raw.length != 16 && raw.length != 24 && raw.length != 32) {
      int n = raw.length;
      Arrays.fill(raw, (byte) 0);
      throw new InvalidKeyException("AES key of " + n + " bytes (expected: 16, 24 or 32)");
    }
    AesParameters given = AesParameters.of(mode == AesMode.GCM, enc, params, random);
    try {
      refuse(enc, raw, given);
    } catch (InvalidAlgorithmParameterException e) {
      Arrays.fill(raw, (byte) 0);
      throw e;
    }
    if (key != null && Arrays.equals(key, raw)) {
      Arrays.fill(raw, (byte) 0); // the same key: keep the copy we hold
    } else {
      if (key != null) {
        Arrays.fill(key, (byte) 0);
      }
      key = raw;
    }
    iv = given.iv(); // the caller's own copy
    encrypt = enc;
    nativeIv = initialized(given);
    try {
      start();
    } catch (IllegalArgumentException e) {
      // OpenSSL refused what the checks above let through: a checked exception, as the JCE wants.
      throw new InvalidAlgorithmParameterException("AES key or IV not accepted by OpenSSL", e);
    }
  }

  /** Refuses an init the mode must not accept (GCM: a key and IV used for encryption before). */
  void refuse(boolean encrypt, byte[] key, AesParameters given)
      throws InvalidAlgorithmParameterException {}

  /**
   * Takes the mode's part of a new init ({@link #key}, {@link #iv} and {@link #encrypt} are set);
   * returns the IV OpenSSL is to be given.
   */
  abstract byte[] initialized(AesParameters given);

  /**
   * Whether an existing native context is restarted for the new IV here (CTR, CBC) rather than by
   * the mode's next native call (GCM, whose sealing or opening call restarts it); false if OpenSSL
   * refused, and a new context is made.
   */
  abstract boolean restart(long ctx);

  /**
   * The native context for the current key and IV: the old one when key, direction and IV length
   * are unchanged, else a new one; then as right after init.
   */
  final void start() {
    boolean keep =
        handle != null
            && Arrays.equals(key, handleKey)
            && encrypt == handleEncrypt
            && nativeIv.length == handleIvLength
            && restart(handle.ptr());
    if (!keep) {
      if (handle != null) {
        handle.close();
      }
      handle = new Handle(NativeCrypto.cipherNew(mode.code, encrypt, key, nativeIv));
      if (handleKey != null) {
        Arrays.fill(handleKey, (byte) 0);
      }
      handleKey = key.clone();
      handleEncrypt = encrypt;
      handleIvLength = nativeIv.length;
    }
    reset();
  }

  /** Back to the state right after init, without touching the native context. */
  abstract void reset();

  /** The native context, or an {@link IllegalStateException} before init. */
  Handle handle() {
    if (handle == null) {
      throw new IllegalStateException("cipher not initialized");
    }
    return handle;
  }

  /** Text through the native context; output as OpenSSL gives it (all of it, or whole blocks). */
  final int update(byte[] in, int off, int len, byte[] out, int outOff) {
    if (len == 0) {
      handle();
      return 0;
    }
    int n;
    try {
      long ctx = handle().ptr();
      beforeText(ctx, len);
      n = NativeCrypto.cipherUpdate(ctx, in, off, len, out, outOff);
    } finally {
      Reference.reachabilityFence(this); // the handle must outlive the native call
    }
    if (n < 0) {
      throw new IllegalStateException("AES update failed");
    }
    return n;
  }

  /** Called before {@code len} bytes of text go to the native context {@code ctx}. */
  abstract void beforeText(long ctx, int len);

  /**
   * A {@link ShortBufferException} unless {@code out} has {@code need} bytes from {@code outOff}.
   */
  static void room(byte[] out, int outOff, int need) throws ShortBufferException {
    if (outOff < 0 || out.length - outOff < need) {
      throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + need);
    }
  }
}
