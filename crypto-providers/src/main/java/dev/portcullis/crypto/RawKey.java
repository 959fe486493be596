package dev.portcullis.crypto;

import java.util.Arrays;
import javax.crypto.SecretKey;

/**
 * A secret key whose bytes we own and can wipe. {@link javax.crypto.spec.SecretKeySpec} cannot be
 * destroyed on JDK 17; this one can, and providers only ever see copies from {@link #getEncoded()}.
 */
final class RawKey implements SecretKey {
  private static final long serialVersionUID = 1L;

  private final String algorithm;
  private final byte[] bytes;
  private volatile boolean destroyed;

  RawKey(String algorithm, byte[] bytes, int off, int len) {
    if (len <= 0) {
      throw new IllegalArgumentException("key: " + len + " bytes (expected: at least 1)");
    }
    this.algorithm = algorithm;
    this.bytes = Arrays.copyOfRange(bytes, off, off + len);
  }

  @Override
  public String getAlgorithm() {
    return algorithm;
  }

  @Override
  public String getFormat() {
    return "RAW";
  }

  @Override
  public byte[] getEncoded() {
    if (destroyed) {
      throw new IllegalStateException("key destroyed");
    }
    return bytes.clone();
  }

  int length() {
    return bytes.length;
  }

  @Override
  public void destroy() {
    destroyed = true;
    Arrays.fill(bytes, (byte) 0);
  }

  @Override
  public boolean isDestroyed() {
    return destroyed;
  }

  @Override
  public String toString() {
    return "RawKey[" + algorithm + ", " + bytes.length + " bytes]"; // never the bytes
  }
}
