package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.BadPaddingException;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.IvParameterSpec;

/**
 * AES/CTR/NoPadding and AES/CBC/PKCS5Padding over OpenSSL: text streams through {@code update} (CTR
 * gives out exactly what it takes, straight into the caller's array; CBC whole blocks, holding the
 * rest and, decrypting, the last block for its padding); after {@code doFinal} the cipher is as it
 * was after {@code init}, the native context restarted with the same key and IV.
 */
public abstract class NativeAesStreamSpi extends NativeAesSpi {
  private long fed; // text bytes given since init, for CBC's output sizes

  NativeAesStreamSpi(AesMode mode) {
    super(mode);
  }

  @Override
  String parametersAlgorithm() {
    return "AES";
  }

  @Override
  AlgorithmParameterSpec parameterSpec() {
    return new IvParameterSpec(iv);
  }

  @Override
  Class<? extends AlgorithmParameterSpec> parameterSpecClass() {
    return IvParameterSpec.class;
  }

  @Override
  byte[] initialized(AesParameters given) {
    return iv;
  }

  @Override
  boolean restart(long ctx) {
    return NativeCrypto.cipherRestart(ctx, encrypt, nativeIv);
  }

  @Override
  void reset() {
    fed = 0;
  }

  @Override
  void beforeText(long ctx, int len) {
    fed += len;
  }

  /** CTR: output as long as input, written straight into the caller's array. */
  private boolean streaming() {
    return mode == AesMode.CTR;
  }

  @Override
  protected int engineGetOutputSize(int inputLen) {
    if (streaming()) {
      return inputLen;
    }
    // CBC: EVP holds back what does not fill a block (and, decrypting, the last block).
    int pending = (int) (fed % 16) + inputLen;
    return encrypt ? (pending / 16 + 1) * 16 : pending;
  }

  @Override
  protected void engineUpdateAAD(byte[] src, int offset, int len) {
    throw new IllegalStateException("additional authenticated data: GCM only");
  }

  @Override
  protected byte[] engineUpdate(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    byte[] out = new byte[len + (streaming() ? 0 : 16)];
    int n = update(in, off, len, out, 0);
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  @Override
  protected int engineUpdate(byte[] in, int off, int len, byte[] out, int outOff)
      throws ShortBufferException {
    Objects.checkFromIndexSize(off, len, in.length);
    if (streaming()) {
      room(out, outOff, len);
      return update(in, off, len, out, outOff); // exactly len bytes
    }
    byte[] tmp = new byte[len + 16];
    int n = update(in, off, len, tmp, 0);
    room(out, outOff, n);
    System.arraycopy(tmp, 0, out, outOff, n);
    return n;
  }

  @Override
  protected byte[] engineDoFinal(byte[] in, int off, int len)
      throws IllegalBlockSizeException, BadPaddingException {
    if (in == null) {
      len = 0;
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
    if (streaming()) {
      room(out, outOff, len);
      int n = update(in, off, len, out, outOff); // exactly len bytes
      byte[] tail = finish(); // nothing, for CTR
      System.arraycopy(tail, 0, out, outOff + n, tail.length);
      return n + tail.length;
    }
    byte[] all = engineDoFinal(in, off, len);
    room(out, outOff, all.length);
    System.arraycopy(all, 0, out, outOff, all.length);
    return all.length;
  }

  /** The end: CBC's padding; then as after init. */
  private byte[] finish() throws IllegalBlockSizeException, BadPaddingException {
    long ctx = handle().ptr();
    try {
      byte[] out = new byte[16];
      int f = NativeCrypto.cipherFinal(ctx, out, 0);
      if (f < 0) {
        if (mode == AesMode.CBC && !encrypt) {
          throw new BadPaddingException("AES/CBC: bad padding or ciphertext length");
        }
        throw new IllegalBlockSizeException("AES: input not a whole number of blocks");
      }
      return Arrays.copyOf(out, f);
    } finally {
      start();
      Reference.reachabilityFence(this);
    }
  }

  /** AES/CTR/NoPadding. */
  public static final class Ctr extends NativeAesStreamSpi {
    public Ctr() {
      super(AesMode.CTR);
    }
  }

  /** AES/CBC/PKCS5Padding. */
  public static final class Cbc extends NativeAesStreamSpi {
    public Cbc() {
      super(AesMode.CBC);
    }
  }
}
