package dev.portcullis.nativecrypto;

import java.nio.ByteBuffer;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import javax.crypto.MacSpi;

/** {@code Mac} for the HMACs of {@link NativeHmac.Digest}, standard JCE semantics. */
abstract class NativeMacSpi extends MacSpi implements Cloneable {
  private final NativeHmac.Digest digest;
  private NativeHmac hmac;

  NativeMacSpi(NativeHmac.Digest digest) {
    this.digest = digest;
  }

  @Override
  protected int engineGetMacLength() {
    return digest.length;
  }

  @Override
  protected void engineInit(Key key, AlgorithmParameterSpec params)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    if (params != null) {
      throw new InvalidAlgorithmParameterException("HMAC takes no parameters");
    }
    if (key == null || !"RAW".equalsIgnoreCase(key.getFormat())) {
      throw new InvalidKeyException("HMAC needs a key in RAW format");
    }
    byte[] k = key.getEncoded();
    if (k == null) {
      throw new InvalidKeyException("the key has no encoding");
    }
    try {
      NativeHmac old = hmac;
      hmac = NativeHmac.create(digest, k);
      if (old != null) {
        old.close();
      }
    } finally {
      Arrays.fill(k, (byte) 0);
    }
  }

  private NativeHmac hmac() {
    if (hmac == null) {
      throw new IllegalStateException("MAC not initialized");
    }
    return hmac;
  }

  @Override
  protected void engineUpdate(byte input) {
    hmac().update(new byte[] {input}, 0, 1);
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    hmac().update(input, offset, len);
  }

  @Override
  protected void engineUpdate(ByteBuffer input) {
    hmac().update(input);
  }

  @Override
  protected byte[] engineDoFinal() {
    byte[] out = new byte[digest.length];
    hmac().doFinal(out, 0);
    return out;
  }

  @Override
  protected void engineReset() {
    if (hmac != null) {
      hmac.reset();
    }
  }

  @Override
  public Object clone() throws CloneNotSupportedException {
    NativeMacSpi c = (NativeMacSpi) super.clone();
    c.hmac = hmac == null ? null : hmac.copy();
    return c;
  }

  public static final class HmacMD5 extends NativeMacSpi {
    public HmacMD5() {
      super(NativeHmac.Digest.MD5);
    }
  }

  public static final class HmacSHA1 extends NativeMacSpi {
    public HmacSHA1() {
      super(NativeHmac.Digest.SHA1);
    }
  }

  public static final class HmacSHA256 extends NativeMacSpi {
    public HmacSHA256() {
      super(NativeHmac.Digest.SHA256);
    }
  }

  public static final class HmacSHA384 extends NativeMacSpi {
    public HmacSHA384() {
      super(NativeHmac.Digest.SHA384);
    }
  }

  public static final class HmacSHA512 extends NativeMacSpi {
    public HmacSHA512() {
      super(NativeHmac.Digest.SHA512);
    }
  }
}
