package dev.portcullis.crypto.kat;

import dev.portcullis.crypto.algorithm.Algorithm;

/**
 * One known-answer vector. For MACs {@code output} is the (possibly truncated) tag; for AES-GCM it
 * is ciphertext followed by the tag; for digests {@code key} is empty.
 *
 * @param origin where the vector comes from, e.g. "RFC 4231 test 2" or "wycheproof
 *     hmac_sha256_test.json tcId 17"
 * @param valid false when the vector must be rejected (modified tag, bad padding, bad IV)
 */
record Vector(
    Algorithm algorithm,
    String origin,
    byte[] key,
    byte[] iv,
    byte[] aad,
    byte[] input,
    byte[] output,
    int tagBits,
    boolean valid) {

  /**
   * True when the parameters are the ones Portcullis uses (96-bit IV, 128-bit tag, AES-128/256).
   */
  boolean standardParameters() {
    if (algorithm != Algorithm.AES_GCM) {
      return true;
    }
    return iv.length == 12 && tagBits == 128 && (key.length == 16 || key.length == 32);
  }
}
