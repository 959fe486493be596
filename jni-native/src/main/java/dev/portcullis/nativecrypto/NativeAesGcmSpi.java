package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
import java.security.InvalidAlgorithmParameterException;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.GCMParameterSpec;

/**
 * AES/GCM/NoPadding over OpenSSL (its own SPI, as ACCP's {@code AesGcmSpi}): additional data before
 * any text; decryption releasing nothing before the tag verified ({@link AEADBadTagException}
 * otherwise); an encryption never run twice under one key and IV, and none after {@code doFinal}
 * until a new init. A whole packet (restart with the new IV, additional data, text, tag) is one
 * native call; an encryption that streams text through {@code update} restarts the context at its
 * first text instead.
 */
public final class NativeAesGcmSpi extends NativeAesSpi {
  private int tagLength; // bytes
  private boolean textSeen;
  private boolean used; // an encryption finished under this key and IV
  private boolean restartPending; // the native context still has the last packet's IV
  private final PendingBytes aad = new PendingBytes(); // for the sealing or opening call
  private final PendingBytes held = new PendingBytes(); // decryption: all of it, until the tag
  private GcmCall call; // the one-call native path's buffer, made on first use
  private byte[] lastKey;
  private byte[] lastIv;

  public NativeAesGcmSpi() {
    super(AesMode.GCM);
  }

  @Override
  String parametersAlgorithm() {
    return "GCM";
  }

  @Override
  AlgorithmParameterSpec parameterSpec() {
    return new GCMParameterSpec(tagLength * 8, iv);
  }

  @Override
  Class<? extends AlgorithmParameterSpec> parameterSpecClass() {
    return GCMParameterSpec.class;
  }

  @Override
  void refuse(boolean encrypt, byte[] key, AesParameters given)
      throws InvalidAlgorithmParameterException {
    if (encrypt && Arrays.equals(key, lastKey) && Arrays.equals(given.iv(), lastIv)) {
      throw new InvalidAlgorithmParameterException(
          "GCM: the same key and IV again for encryption (an IV must never repeat under a key)");
    }
  }

  @Override
  byte[] initialized(AesParameters given) {
    tagLength = given.tagLength();
    if (encrypt) {
      if (!Arrays.equals(lastKey, key)) {
        if (lastKey != null) {
          Arrays.fill(lastKey, (byte) 0);
        }
        lastKey = key.clone();
      }
      lastIv = iv; // never written to: engineGetIV hands out copies
    }
    return iv.length > GcmLongIv.OPENSSL_MAX_IV ? GcmLongIv.equivalent(key, iv) : iv;
  }

  @Override
  boolean restart(long ctx) {
    return true; // the packet's native call restarts it with the new IV
  }

  @Override
  void reset() {
    textSeen = false;
    used = false;
    restartPending = true;
    aad.clear();
    held.clear();
  }

  @Override
  Handle handle() {
    Handle h = super.handle();
    if (used) {
      throw new IllegalStateException(
          "GCM encryption finished: init again with a new IV (one must never repeat under a key)");
    }
    return h;
  }

  @Override
  protected int engineGetOutputSize(int inputLen) {
    return encrypt ? inputLen + tagLength : Math.max(0, held.length() + inputLen - tagLength);
  }

  @Override
  protected void engineUpdateAAD(byte[] src, int offset, int len) {
    Objects.checkFromIndexSize(offset, len, src.length);
    handle();
    if (textSeen || held.length() > 0) {
      throw new IllegalStateException("additional authenticated data must come before the text");
    }
    aad.append(src, offset, len); // to OpenSSL with the text, in the same native call
  }

  /**
   * An encryption that streams text through {@code update}: the restart and the additional data the
   * one-call path would have carried go to OpenSSL now.
   */
  @Override
  void beforeText(long ctx, int len) {
    if (restartPending) {
      if (!NativeCrypto.cipherRestart(ctx, true, nativeIv)
          || !NativeCrypto.cipherAad(ctx, aad.array(), 0, aad.length())) {
        throw new IllegalStateException("GCM: restart not accepted");
      }
      restartPending = false;
      aad.clear();
    }
    textSeen = true;
  }

  @Override
  protected byte[] engineUpdate(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    if (!encrypt) {
      handle();
      held.append(in, off, len);
      return new byte[0];
    }
    byte[] out = new byte[len];
    int n = update(in, off, len, out, 0);
    return n == len ? out : Arrays.copyOf(out, n);
  }

  @Override
  protected int engineUpdate(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException {
    Objects.checkFromIndexSize(off, len, in.length);
    if (!encrypt) {
      handle();
      held.append(in, off, len);
      return 0;
    }
    room(out, outOff, len);
    return update(in, off, len, out, outOff); // exactly len bytes
  }

  @Override
  protected byte[] engineDoFinal(byte[] in, int off, int len) throws AEADBadTagException {
    if (in == null) {
      len = 0;
    }
    byte[] out = new byte[engineGetOutputSize(len)];
    try {
      engineDoFinal(in, off, len, out, 0);
    } catch (ShortBufferException e) {
      throw new AssertionError(e);
    }
    return out;
  }

  @Override
  protected int engineDoFinal(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException, AEADBadTagException {
    if (in == null) {
      len = 0;
      in = new byte[0];
      off = 0;
    }
    Objects.checkFromIndexSize(off, len, in.length);
    if (!encrypt || restartPending) {
      return oneCall(in, off, len, out, outOff);
    }
    room(out, outOff, len + tagLength);
    int n = update(in, off, len, out, outOff); // exactly len bytes
    return n + finishStreamed(out, outOff + n);
  }

  /**
   * A whole packet in one native call: sealing (nothing streamed yet) or opening (everything held
   * back until now). The input is the caller's array, or the held-back bytes plus it.
   */
  private int oneCall(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException, AEADBadTagException {
    long ctx = handle().ptr();
    int total = encrypt ? len : held.length() + len;
    int textLen = encrypt ? len : total - tagLength;
    if (textLen < 0) {
      reset();
      throw new AEADBadTagException(
          "GCM: " + total + " bytes, shorter than the " + tagLength + "-byte tag");
    }
    int need = encrypt ? len + tagLength : textLen;
    room(out, outOff, need); // nothing changed: the caller may retry
    if (!encrypt && held.length() > 0) {
      held.append(in, off, len);
      in = held.array();
      off = 0;
      len = total;
    }
    if (in == out && off != outOff && off < outOff + need && outOff < off + len) {
      in = Arrays.copyOfRange(in, off, off + len); // overlapping, not in place
      off = 0;
    }
    if (call == null) {
      call = new GcmCall();
    }
    int n;
    try {
      n = call.run(ctx, encrypt, nativeIv, aad, in, off, len, textLen, out, outOff, tagLength);
    } finally {
      Reference.reachabilityFence(this); // the handle (and the call's buffer) outlive the call
      if (encrypt) {
        used = true;
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

  /** The end of a streamed encryption: the tag (and anything OpenSSL held) into {@code out}. */
  private int finishStreamed(byte[] out, int outOff) {
    long ctx = handle().ptr();
    try {
      byte[] tail = new byte[16 + tagLength];
      int f = NativeCrypto.cipherFinal(ctx, tail, 0);
      if (f < 0 || !NativeCrypto.cipherGetTag(ctx, tail, f, tagLength)) {
        throw new IllegalStateException("GCM: no tag");
      }
      System.arraycopy(tail, 0, out, outOff, f + tagLength);
      return f + tagLength;
    } finally {
      used = true;
      Reference.reachabilityFence(this);
    }
  }
}
