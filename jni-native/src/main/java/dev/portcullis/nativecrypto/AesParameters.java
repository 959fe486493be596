package dev.portcullis.nativecrypto;

import java.security.InvalidAlgorithmParameterException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;

/**
 * The IV and tag length a {@code Cipher.init} asks for, checked the way the JCE wants: a wrong or
 * missing parameter is an {@link InvalidAlgorithmParameterException}, never anything else.
 *
 * @param iv the IV (a copy the caller owns)
 * @param tagLength the GCM tag length in bytes (16 for the other modes, unused)
 */
record AesParameters(byte[] iv, int tagLength) {
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * @param gcm GCM (a {@link GCMParameterSpec}, IV of any non-zero length, 96- to 128-bit tags)
   *     rather than CTR or CBC (an {@link IvParameterSpec} of 16 bytes)
   * @param encrypt without parameters, encryption draws a random IV (12 bytes for GCM, else 16)
   */
  static AesParameters of(
      boolean gcm, boolean encrypt, AlgorithmParameterSpec params, SecureRandom random)
      throws InvalidAlgorithmParameterException {
    if (params == null) {
      if (!encrypt) {
        throw new InvalidAlgorithmParameterException("decryption needs the IV");
      }
      byte[] iv = new byte[gcm ? 12 : 16];
      (random == null ? RANDOM : random).nextBytes(iv);
      return new AesParameters(iv, 16);
    }
    if (gcm && params instanceof GCMParameterSpec g) {
      int bits = g.getTLen();
      if (bits < 96 || bits > 128 || bits % 8 != 0) {
        throw new InvalidAlgorithmParameterException(
            "GCM tag of " + bits + " bits (expected: 96 to 128, whole bytes)");
      }
      byte[] iv = g.getIV();
      if (iv.length == 0) {
        throw new InvalidAlgorithmParameterException("GCM IV: empty");
      }
      return new AesParameters(iv, bits / 8);
    }
    if (!gcm && params instanceof IvParameterSpec p) {
      byte[] iv = p.getIV();
      if (iv.length != 16) {
        throw new InvalidAlgorithmParameterException(
            "IV of " + iv.length + " bytes (expected: 16)");
      }
      return new AesParameters(iv, 16);
    }
    throw new InvalidAlgorithmParameterException(
        "parameters: "
            + params.getClass().getSimpleName()
            + " (expected: "
            + (gcm ? "GCMParameterSpec" : "IvParameterSpec")
            + ")");
  }
}
