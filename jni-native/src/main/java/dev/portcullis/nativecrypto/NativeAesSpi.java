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

  private final AesMode mode;
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
  private boolean gcmRestartPending; // the native context still has the last packet's IV
  private PendingBytes gcmAad; // GCM additional data, for the sealing or opening call
  private PendingBytes gcmIn; // GCM decryption: all of it, until the tag is checked
  private GcmCall gcmCall; // the one-call native path's buffer, made on first use
  private byte[] lastGcmKey;
  private byte[] lastGcmIv;

  /** The EVP context, freed like every native handle. */
  private static final class Handle extends NativeHandle {
    Handle(long ptr) {
      super(ptr, NativeCrypto::cipherFree);
    }
  }

  NativeAesSpi(AesMode mode) {
    this.mode = mode;
    this.modeName = mode.jcaName;
    this.paddingName = mode.padding;
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
    int buffered = gcmIn == null || encrypt ? 0 : gcmIn.length();
    switch (mode) {
      case GCM:
        return encrypt ? inputLen + tagLength : Math.max(0, buffered + inputLen - tagLength);
      case CTR:
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
      AlgorithmParameters p = AlgorithmParameters.getInstance(mode == AesMode.GCM ? "GCM" : "AES");
      p.init(
          mode == AesMode.GCM ? new GCMParameterSpec(tagLength * 8, iv) : new IvParameterSpec(iv));
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
            mode == AesMode.GCM
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
    AesParameters given = AesParameters.of(mode == AesMode.GCM, enc, params, random);
    byte[] newIv = given.iv(); // the caller's own copy
    if (mode == AesMode.GCM
        && enc
        && Arrays.equals(raw, lastGcmKey)
        && Arrays.equals(newIv, lastGcmIv)) {
      Arrays.fill(raw, (byte) 0);
      throw new InvalidAlgorithmParameterException(
          "GCM: the same key and IV again for encryption (an IV must never repeat under a key)");
    }
    if (key != null && Arrays.equals(key, raw)) {
      Arrays.fill(raw, (byte) 0); // the same key: keep the copy we hold
    } else {
      if (key != null) {
        Arrays.fill(key, (byte) 0);
      }
      key = raw;
    }
    iv = newIv;
    nativeIv =
        mode == AesMode.GCM && iv.length > GcmLongIv.OPENSSL_MAX_IV
            ? GcmLongIv.equivalent(key, iv)
            : iv;
    tagLength = given.tagLength();
    encrypt = enc;
    if (mode == AesMode.GCM && enc) {
      if (!Arrays.equals(lastGcmKey, key)) {
        if (lastGcmKey != null) {
          Arrays.fill(lastGcmKey, (byte) 0);
        }
        lastGcmKey = key.clone();
      }
      lastGcmIv = iv; // never written to: engineGetIV hands out copies
    }
    try {
      start();
    } catch (IllegalArgumentException e) {
      // OpenSSL refused what the checks above let through: a checked exception, as the JCE wants.
      throw new InvalidAlgorithmParameterException("AES key or IV not accepted by OpenSSL", e);
    }
  }

  /**
   * The native context for the current key and IV: the old one when key, direction and IV length
   * are unchanged (the key schedule is kept: a packet per init costs no key expansion), else a new
   * one. GCM only marks the old one for a restart with the new IV, which the sealing or opening
   * call does (one native call per packet); CTR and CBC restart it here.
   */
  private void start() {
    boolean keep =
        handle != null
            && Arrays.equals(key, handleKey)
            && encrypt == handleEncrypt
            && nativeIv.length == handleIvLength
            && (mode == AesMode.GCM || NativeCrypto.cipherRestart(handle.ptr(), encrypt, nativeIv));
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
  private void reset() {
    textSeen = false;
    fed = 0;
    gcmUsed = false;
    gcmRestartPending = mode == AesMode.GCM;
    if (gcmAad != null) {
      gcmAad.clear();
      gcmIn.clear();
    } else if (mode == AesMode.GCM) {
      gcmAad = new PendingBytes();
      gcmIn = new PendingBytes();
    }
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
    if (mode != AesMode.GCM) {
      throw new IllegalStateException("additional authenticated data: GCM only");
    }
    handle();
    if (textSeen || gcmIn.length() > 0) {
      throw new IllegalStateException("additional authenticated data must come before the text");
    }
    gcmAad.append(src, offset, len); // to OpenSSL with the text, in the same native call
  }

  /**
   * A GCM encryption that streams text through {@code update}: the restart and the additional data
   * the one-call path would have carried go to OpenSSL now.
   */
  private void gcmStartStreaming(long ctx) {
    if (gcmRestartPending) {
      if (!NativeCrypto.cipherRestart(ctx, true, nativeIv)
          || !NativeCrypto.cipherAad(ctx, gcmAad.array(), 0, gcmAad.length())) {
        throw new IllegalStateException("GCM: restart not accepted");
      }
      gcmRestartPending = false;
      gcmAad.clear();
    }
  }

  @Override
  protected byte[] engineUpdate(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    if (mode == AesMode.GCM && !encrypt) {
      handle();
      gcmIn.append(in, off, len);
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
    if (mode == AesMode.GCM && !encrypt) {
      handle();
      gcmIn.append(in, off, len);
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
    if (len == 0) {
      handle();
      return 0;
    }
    int n;
    try {
      long ctx = handle().ptr();
      if (mode == AesMode.GCM) {
        gcmStartStreaming(ctx);
      }
      textSeen = true;
      fed += len;
      n = NativeCrypto.cipherUpdate(ctx, in, off, len, out, outOff);
    } finally {
      Reference.reachabilityFence(this); // the handle must outlive the native call
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
    return mode == AesMode.CTR || (mode == AesMode.GCM && encrypt);
  }

  @Override
  protected byte[] engineDoFinal(byte[] in, int off, int len)
      throws IllegalBlockSizeException, BadPaddingException {
    if (in == null) {
      len = 0;
    }
    if (mode == AesMode.GCM) {
      int n = encrypt ? len + tagLength : Math.max(0, gcmIn.length() + len - tagLength);
      byte[] out = new byte[n];
      try {
        engineDoFinal(in, off, len, out, 0);
      } catch (ShortBufferException e) {
        throw new AssertionError(e);
      }
      return out;
    }
    if (streaming()) {
      byte[] out = new byte[len];
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
      in = new byte[0];
      off = 0;
    }
    Objects.checkFromIndexSize(off, len, in.length);
    if (mode == AesMode.GCM && (!encrypt || gcmRestartPending)) {
      return gcmOneCall(in, off, len, out, outOff);
    }
    if (streaming()) {
      int need = len + (mode == AesMode.GCM ? tagLength : 0);
      if (outOff < 0 || out.length - outOff < need) {
        throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + need);
      }
      int n = update(in, off, len, out, outOff); // exactly len bytes
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

  /**
   * A whole GCM packet in one native call: sealing (nothing streamed yet) or opening (everything
   * held back until now). The input is the caller's array, or the held-back bytes plus it.
   */
  private int gcmOneCall(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException, AEADBadTagException {
    long ctx = handle().ptr();
    int total = encrypt ? len : gcmIn.length() + len;
    int textLen = encrypt ? len : total - tagLength;
    if (textLen < 0) {
      reset();
      throw new AEADBadTagException(
          "GCM: " + total + " bytes, shorter than the " + tagLength + "-byte tag");
    }
    int need = encrypt ? len + tagLength : textLen;
    if (outOff < 0 || out.length - outOff < need) { // nothing changed: the caller may retry
      throw new ShortBufferException("output: " + (out.length - outOff) + " bytes, need " + need);
    }
    if (!encrypt && gcmIn.length() > 0) {
      gcmIn.append(in, off, len);
      in = gcmIn.array();
      off = 0;
      len = total;
    }
    if (in == out && off != outOff && off < outOff + need && outOff < off + len) {
      in = Arrays.copyOfRange(in, off, off + len); // overlapping, not in place
      off = 0;
    }
    if (gcmCall == null) {
      gcmCall = new GcmCall();
    }
    int n;
    try {
      n =
          gcmCall.run(
              ctx, encrypt, nativeIv, gcmAad, in, off, len, textLen, out, outOff, tagLength);
    } finally {
      Reference.reachabilityFence(this); // the handle (and the call's buffer) outlive the call
      if (encrypt) {
        gcmUsed = true;
      } else {
        reset();
      }
    }
    if (n < 0) {
      if (encrypt) {
        throw new IllegalStateException("GCM: sealing failed");
      }
      throw new AEADBadTagException("GCM: tag mismatch");
    }
    return n;
  }

  /** The end of CBC or CTR, or of a streamed GCM encryption: padding, tag; then as after init. */
  private byte[] finish() throws IllegalBlockSizeException, BadPaddingException {
    long ctx = handle().ptr();
    try {
      byte[] out = new byte[16 + (mode == AesMode.GCM ? tagLength : 0)];
      int f = NativeCrypto.cipherFinal(ctx, out, 0);
      if (f < 0) {
        if (mode == AesMode.CBC && !encrypt) {
          throw new BadPaddingException("AES/CBC: bad padding or ciphertext length");
        }
        throw new IllegalBlockSizeException("AES: input not a whole number of blocks");
      }
      if (mode == AesMode.GCM) {
        if (!NativeCrypto.cipherGetTag(ctx, out, f, tagLength)) {
          throw new IllegalStateException("GCM: no tag");
        }
        f += tagLength;
      }
      return Arrays.copyOf(out, f);
    } finally {
      if (mode == AesMode.GCM) {
        gcmUsed = true;
      } else {
        start();
      }
      Reference.reachabilityFence(this);
    }
  }

  public static final class Gcm extends NativeAesSpi {
    public Gcm() {
      super(AesMode.GCM);
    }
  }

  public static final class Ctr extends NativeAesSpi {
    public Ctr() {
      super(AesMode.CTR);
    }
  }

  public static final class Cbc extends NativeAesSpi {
    public Cbc() {
      super(AesMode.CBC);
    }
  }
}
