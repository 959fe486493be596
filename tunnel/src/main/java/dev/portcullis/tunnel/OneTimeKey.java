package dev.portcullis.tunnel;

import java.security.SecureRandom;
import java.util.Arrays;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * A one-time key pair for one end of one tunnel (the dynamic VPN tunnels paper, section 3), made by
 * the agent that will use it: an Ed25519 key (RFC 8032), which charon signs IKE_AUTH with (RFC
 * 7427) and checks at a fraction of an ECDSA key's cost. Only the public key leaves the agent
 * ({@link #publicKeyInfo}, to be certified by the PDP's authority); the private key goes to charon
 * ({@link #pkcs8}, by {@code load-key}) and is zeroed here by {@link #zero}. The key is made from
 * 32 random bytes held in an array of this object's own, so that zeroing it is real: a JCA key
 * object would keep copies no one can clear.
 */
public final class OneTimeKey {
  /** charon's name of the key's type ({@code load-key}'s {@code type}). */
  public static final String KEY_TYPE = "ed25519";

  // RFC 8410: SubjectPublicKeyInfo and PKCS#8 (OneAsymmetricKey v1) of an Ed25519 key, up to the
  // key
  private static final byte[] SPKI_PREFIX = hex("302a300506032b6570032100");
  private static final byte[] PKCS8_PREFIX = hex("302e020100300506032b657004220420");

  private final byte[] secret = new byte[Ed25519.SECRET_KEY_SIZE];
  private final byte[] publicKey = new byte[Ed25519.PUBLIC_KEY_SIZE];

  private OneTimeKey(SecureRandom random) {
    Ed25519.generatePrivateKey(random, secret);
    Ed25519.generatePublicKey(secret, 0, publicKey, 0);
  }

  /** A fresh key pair from {@code random}. */
  public static OneTimeKey generate(SecureRandom random) {
    return new OneTimeKey(random);
  }

  /** The public key as a DER SubjectPublicKeyInfo (RFC 8410), 44 bytes: what the agent sends. */
  public byte[] publicKeyInfo() {
    byte[] out = Arrays.copyOf(SPKI_PREFIX, SPKI_PREFIX.length + publicKey.length);
    System.arraycopy(publicKey, 0, out, SPKI_PREFIX.length, publicKey.length);
    return out;
  }

  /**
   * The private key as PKCS#8 (RFC 8410's OneAsymmetricKey, version 1), 48 bytes, a new array the
   * caller zeroes once charon has it.
   */
  public byte[] pkcs8() {
    byte[] out = Arrays.copyOf(PKCS8_PREFIX, PKCS8_PREFIX.length + secret.length);
    System.arraycopy(secret, 0, out, PKCS8_PREFIX.length, secret.length);
    return out;
  }

  /** Whether {@code subjectPublicKeyInfo} (from a certificate) is this key's public key. */
  public boolean matches(byte[] subjectPublicKeyInfo) {
    return Arrays.equals(publicKeyInfo(), subjectPublicKeyInfo);
  }

  /** Overwrites the private key. */
  public void zero() {
    Arrays.fill(secret, (byte) 0);
  }

  @Override
  public String toString() {
    return "OneTimeKey[ed25519, private key (hidden)]";
  }

  private static byte[] hex(String s) {
    return java.util.HexFormat.of().parseHex(s);
  }
}
