package dev.portcullis.nativecrypto;

import java.io.ByteArrayOutputStream;
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
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;

/**
 * AES/GCM/NoPadding, AES/CTR/NoPadding and AES/CBC/PKCS5Padding over OpenSSL's EVP, 128-, 192- and
 * 256-bit keys, with the JCE's semantics: a fresh random IV when encrypting without one; GCM
 * additional data before any text, GCM decryption releasing nothing before the tag verified ({@link
 * AEADBadTagException} otherwise), a GCM encryption never run twice under one key and IV; after
 * {@code doFinal} the cipher is as it was after {@code init} (GCM encryption excepted, which needs
 * a new IV).
 */
abstract class NativeAesSpi extends CipherSpi {

  private final int mode; // 1 GCM, 2 CTR, 3 CBC
  private final String modeName;
  private final String paddingName;
  private Handle handle;
  private byte[] handleKey; // the key, direction and IV length the handle was made with
  private boolean handleEncrypt;
  private int handleIvLength;
  private boolean encrypt;
  private byte[] key;
  private byte[] iv;
  private byte[] nativeIv; // what OpenSSL is given: iv, or its 16-byte equivalent (GcmLongIv)
  private int tagLength; // bytes, GCM
  private boolean textSeen;
  private long fed; // text bytes given since init, for CBC's output sizes
  private boolean gcmUsed; // a GCM encryption finished under this key and IV
  private ByteArrayOutputStream gcmIn; // GCM decryption: all of it, until the tag is checked
  private byte[] lastGcmKey;
  private byte[] lastGcmIv;

  /** The EVP context, freed like every native handle. */
  private static final class Handle extends NativeHandle {
    Handle(long ptr) {
      super(ptr, NativeCrypto::cipherFree);
    }
  }

  NativeAesSpi(int mode, String modeName, String paddingName) {
    this.mode = mode;
    this.modeName = modeName;
    this.paddingName = paddingName;
  }

  @Override
  protected void engineSetMode(String m) throws NoSuchAlgorithmException {
    if (!modeName.equalsIgnoreCase(m)) {
      throw new NoSuchAlgorithmException("mode " + m + " (this is AES/" + modeName + ")");
    }
  }

  @Override
  protected void engineSetPadding(String p) throws NoSuchPaddingException {
    if (!paddingName.equalsIgnoreCase(p)) {
      throw new NoSuchPaddingException("padding " + p + " (this is " + paddingName + ")");
    }
  }

  @Override
  protected int engineGetBlockSize() {
    return 16;
  }

  @Override
  protected int engineGetOutputSize(int inputLen) {
    int buffered = gcmIn == null ? 0 : gcmIn.size();
    switch (mode) {
      case 1:
        return encrypt ? inputLen + tagLength : Math.max(0, buffered + inputLen - tagLength);
      case 2:
        return inputLen;
      default:
        // CBC: EVP holds back what does not fill a block (and, decrypting, the last block).
        int pending = (int) (fed % 16) + inputLen;
        return encrypt ? (pending / 16 + 1) * 16 : pending;
    }
  }

  @Override
  protected byte[] engineGetIV() {
    return iv == null ? null : iv.clone();
  }

  @Override
  protected AlgorithmParameters engineGetParameters() {
    if (iv == null) {
      return null;
    }
    try {
      AlgorithmParameters p = AlgorithmParameters.getInstance(mode == 1 ? "GCM" : "AES");
      p.init(mode == 1 ? new GCMParameterSpec(tagLength * 8, iv) : new IvParameterSpec(iv));
      return p;
    } catch (NoSuchAlgorithmException | InvalidParameterSpecException e) {
      return null;
    }
  }

  @Override
  protected void engineInit(int opmode, Key k, SecureRandom random) throws InvalidKeyException {
    try {
      engineInit(opmode, k, (AlgorithmParameterSpec) null, random);
    } catch (InvalidAlgorithmParameterException e) {
      throw new InvalidKeyException(e.getMessage(), e);
    }
  }

  @Override
  protected void engineInit(int opmode, Key k, AlgorithmParameters params, SecureRandom random)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    AlgorithmParameterSpec spec = null;
    if (params != null) {
      try {
        spec =
            mode == 1
                ? params.getParameterSpec(GCMParameterSpec.class)
                : params.getParameterSpec(IvParameterSpec.class);
      } catch (InvalidParameterSpecException e) {
        throw new InvalidAlgorithmParameterException("parameters: " + e.getMessage(), e);
      }
    }
    engineInit(opmode, k, spec, random);
  }

  @Override
  protected void engineInit(int opmode, Key k, AlgorithmParameterSpec params, SecureRandom random)
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
    AesParameters given = AesParameters.of(mode == 1, enc, params, random);
    byte[] newIv = given.iv();
    int newTag = given.tagLength();
    if (mode == 1 && enc && Arrays.equals(raw, lastGcmKey) && Arrays.equals(newIv, lastGcmIv)) {
      throw new InvalidAlgorithmParameterException(
          "GCM: the same key and IV again for encryption (an IV must never repeat under a key)");
    }
    if (key != null) {
      Arrays.fill(key, (byte) 0);
    }
    key = raw;
    iv = newIv.clone();
    nativeIv =
        mode == 1 && iv.length > GcmLongIv.OPENSSL_MAX_IV ? GcmLongIv.equivalent(raw, iv) : iv;
    tagLength = newTag;
    encrypt = enc;
    if (mode == 1 && enc) {
      if (lastGcmKey != null) {
        Arrays.fill(lastGcmKey, (byte) 0);
      }
      lastGcmKey = raw.clone();
      lastGcmIv = iv.clone();
    }
    try {
      start();
    } catch (IllegalArgumentException e) {
      // OpenSSL refused what the checks above let through: a checked exception, as the JCE wants.
      throw new InvalidAlgorithmParameterException("AES key or IV not accepted by OpenSSL", e);
    }
  }

  /**
   * The native context for the current key and IV: the old one restarted with the new IV when key,
   * direction and IV length are unchanged (the key schedule is kept: a packet per init costs no key
   * expansion), else a new one.
   */
  private void start() {
    boolean reuse =
        handle != null
            && Arrays.equals(key, handleKey)
            && encrypt == handleEncrypt
            && nativeIv.length == handleIvLength
            && NativeCrypto.cipherRestart(handle.ptr(), encrypt, nativeIv);
    if (!reuse) {
      if (handle != null) {
        handle.close();
      }
      handle = new Handle(NativeCrypto.cipherNew(mode, encrypt, key, nativeIv));
      if (handleKey != null) {
        Arrays.fill(handleKey, (byte) 0);
      }
      handleKey = key.clone();
      handleEncrypt = encrypt;
      handleIvLength = nativeIv.length;
    }
    textSeen = false;
    fed = 0;
    gcmUsed = false;
    gcmIn = mode == 1 && !encrypt ? new ByteArrayOutputStream() : null;
  }

  private Handle handle() {
    if (handle == null) {
      throw new IllegalStateException("cipher not initialized");
    }
    if (gcmUsed) {
      throw new IllegalStateException(
          "GCM encryption finished: init again with a new IV (one must never repeat under a key)");
    }
    return handle;
  }

  @Override
  protected void engineUpdateAAD(byte[] src, int offset, int len) {
    Objects.checkFromIndexSize(offset, len, src.length);
    if (mode != 1) {
      throw new IllegalStateException("additional authenticated data: GCM only");
    }
    if (textSeen || (gcmIn != null && gcmIn.size() > 0)) {
      throw new IllegalStateException("additional authenticated data must come before the text");
    }
    try {
      if (!NativeCrypto.cipherAad(handle().ptr(), src, offset, len)) {
        throw new IllegalStateException("GCM: additional data not accepted");
      }
    } finally {
      Reference.reachabilityFence(this); // the handle must outlive the native call
    }
  }

  @Override
  protected byte[] engineUpdate(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    if (gcmIn != null) {
      handle();
      gcmIn.write(in, off, len);
      return new byte[0];
    }
    byte[] out = new byte[len + (streaming() ? 0 : 16)];
    int n = update(in, off, len, out, 0);
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  @Override
  protected int engineUpdate(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException {
    Objects.checkFromIndexSize(off, len, in.length);
    if (gcmIn != null) {
      handle();
      gcmIn.write(in, off, len);
      return 0;
    }
    if (streaming()) {
      if (outOff < 0 || out.length - outOff < len) {
        throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + len);
      }
      return update(in, off, len, out, outOff); // exactly len bytes
    }
    byte[] tmp = new byte[len + 16];
    int n = update(in, off, len, tmp, 0);
    if (out.length - outOff < n) {
      throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + n);
    }
    System.arraycopy(tmp, 0, out, outOff, n);
    return n;
  }

  private int update(byte[] in, int off, int len, byte[] out, int outOff) {
    textSeen |= len > 0;
    fed += len;
    int n;
    try {
      n = NativeCrypto.cipherUpdate(handle().ptr(), in, off, len, out, outOff);
    } finally {
      Reference.reachabilityFence(this);
    }
    if (n < 0) {
      throw new IllegalStateException("AES update failed");
    }
    return n;
  }

  /**
   * True when the text's output is exactly as long as its input (GCM and CTR encryption, CTR
   * decryption): the native code then writes straight into the caller's array.
   */
  private boolean streaming() {
    return mode == 2 || (mode == 1 && encrypt);
  }

  @Override
  protected byte[] engineDoFinal(byte[] in, int off, int len)
      throws IllegalBlockSizeException, BadPaddingException {
    if (in == null) {
      len = 0;
    }
    if (streaming()) {
      byte[] out = new byte[len + (mode == 1 ? tagLength : 0)];
      try {
        engineDoFinal(in, off, len, out, 0);
      } catch (ShortBufferException e) {
        throw new AssertionError(e);
      }
      return out;
    }
    byte[] head = len == 0 ? new byte[0] : engineUpdate(in, off, len);
    byte[] tail = finish();
    byte[] all = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  @Override
  protected int engineDoFinal(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
    if (in == null) {
      len = 0;
    }
    if (streaming()) {
      int need = len + (mode == 1 ? tagLength : 0);
      if (outOff < 0 || out.length - outOff < need) {
        throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + need);
      }
      int n = 0;
      if (len > 0) {
        Objects.checkFromIndexSize(off, len, in.length);
        n = update(in, off, len, out, outOff); // exactly len bytes
      }
      byte[] tail = finish(); // the GCM tag, or nothing
      System.arraycopy(tail, 0, out, outOff + n, tail.length);
      return n + tail.length;
    }
    byte[] all = engineDoFinal(in, off, len);
    if (out.length - outOff < all.length) {
      throw new ShortBufferException(
          "output: " + (out.length - outOff) + " bytes, need " + all.length);
    }
    System.arraycopy(all, 0, out, outOff, all.length);
    return all.length;
  }

  /** The end of the text: padding, tag; then back to the state after init. */
  private byte[] finish() throws IllegalBlockSizeException, BadPaddingException {
    long ctx = handle().ptr();
    try {
      if (mode == 1 && !encrypt) {
        byte[] all = gcmIn.toByteArray();
        if (all.length < tagLength) {
          throw new AEADBadTagException(
              "GCM: " + all.length + " bytes, shorter than the " + tagLength + "-byte tag");
        }
        int textLen = all.length - tagLength;
        if (!NativeCrypto.cipherSetTag(ctx, all, textLen, tagLength)) {
          throw new AEADBadTagException("GCM: tag not accepted");
        }
        byte[] out = new byte[textLen + 16];
        int n = textLen == 0 ? 0 : NativeCrypto.cipherUpdate(ctx, all, 0, textLen, out, 0);
        int f = n < 0 ? -1 : NativeCrypto.cipherFinal(ctx, out, n);
        if (n < 0 || f < 0) {
          Arrays.fill(out, (byte) 0);
          throw new AEADBadTagException("GCM: tag mismatch");
        }
        return Arrays.copyOf(out, n + f);
      }
      byte[] out = new byte[16 + (mode == 1 ? tagLength : 0)];
      int f = NativeCrypto.cipherFinal(ctx, out, 0);
      if (f < 0) {
        if (mode == 3 && !encrypt) {
          throw new BadPaddingException("AES/CBC: bad padding or ciphertext length");
        }
        throw new IllegalBlockSizeException("AES: input not a whole number of blocks");
      }
      if (mode == 1) {
        if (!NativeCrypto.cipherGetTag(ctx, out, f, tagLength)) {
          throw new IllegalStateException("GCM: no tag");
        }
        f += tagLength;
      }
      return Arrays.copyOf(out, f);
    } finally {
      if (mode == 1 && encrypt) {
        gcmUsed = true;
      } else {
        start();
      }
      Reference.reachabilityFence(this);
    }
  }

  public static final class Gcm extends NativeAesSpi {
    public Gcm() {
      super(1, "GCM", "NoPadding");
    }
  }

  public static final class Ctr extends NativeAesSpi {
    public Ctr() {
      super(2, "CTR", "NoPadding");
    }
  }

  public static final class Cbc extends NativeAesSpi {
    public Cbc() {
      super(3, "CBC", "PKCS5Padding");
    }
  }
}
