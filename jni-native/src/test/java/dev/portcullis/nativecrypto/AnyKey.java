package dev.portcullis.nativecrypto;

import javax.crypto.SecretKey;

/**
 * A raw key of any length, even empty (SecretKeySpec refuses empty keys; HMAC allows them, and the
 * tests feed providers keys they must refuse).
 */
record AnyKey(String algorithm, byte[] bytes) implements SecretKey {
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
    return bytes.clone();
  }
}
