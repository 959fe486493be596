package dev.portcullis.nativecrypto;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigestSpi;

/** {@code MessageDigest} SHA-256 and SHA-512, standard JCA semantics. */
abstract class NativeDigestSpi extends MessageDigestSpi implements Cloneable {
  private NativeDigest digest;

  NativeDigestSpi(NativeDigest.Algorithm a) {
    this.digest = NativeDigest.create(a);
  }

  @Override
  protected int engineGetDigestLength() {
    return digest.algorithm.length;
  }

  @Override
  protected void engineUpdate(byte input) {
    digest.update(new byte[] {input}, 0, 1);
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    digest.update(input, offset, len);
  }

  @Override
  protected void engineUpdate(ByteBuffer input) {
    digest.update(input);
  }

  @Override
  protected byte[] engineDigest() {
    byte[] out = new byte[digest.algorithm.length];
    digest.doFinal(out, 0);
    return out;
  }

  @Override
  protected int engineDigest(byte[] buf, int offset, int len) throws DigestException {
    if (len < digest.algorithm.length) {
      throw new DigestException(
          "output: " + len + " bytes (expected: at least " + digest.algorithm.length + ")");
    }
    return digest.doFinal(buf, offset);
  }

  @Override
  protected void engineReset() {
    digest.reset();
  }

  @Override
  public Object clone() throws CloneNotSupportedException {
    NativeDigestSpi c = (NativeDigestSpi) super.clone();
    c.digest = digest.copy();
    return c;
  }

  public static final class SHA256 extends NativeDigestSpi {
    public SHA256() {
      super(NativeDigest.Algorithm.SHA256);
    }
  }

  public static final class SHA512 extends NativeDigestSpi {
    public SHA512() {
      super(NativeDigest.Algorithm.SHA512);
    }
  }
}
