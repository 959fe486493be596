package dev.portcullis.cops.integrity;

import dev.portcullis.crypto.algorithm.Algorithm;

/** Keyed digests for the COPS Integrity object (RFC 2748 section 2.2.16). */
public enum IntegrityAlgorithm {
  /**
   * HMAC-MD5 truncated to 96 bits: the algorithm every COPS implementation MUST support. Legacy:
   * MD5 is broken as a hash; HMAC-MD5 is not known to be broken, but use it only with peers that
   * offer nothing better.
   */
  HMAC_MD5_96("HMAC-MD5-96", Algorithm.HMAC_MD5, 12, true),

  /** HMAC-SHA-256 truncated to 128 bits: Portcullis's recommended choice. */
  HMAC_SHA256_128("HMAC-SHA-256-128", Algorithm.HMAC_SHA256, 16, false);

  private final String displayName;
  private final Algorithm mac;
  private final int digestLength;
  private final boolean legacy;

  IntegrityAlgorithm(String displayName, Algorithm mac, int digestLength, boolean legacy) {
    this.displayName = displayName;
    this.mac = mac;
    this.digestLength = digestLength;
    this.legacy = legacy;
  }

  /** The name used in configuration and docs, e.g. {@code HMAC-SHA-256-128}. */
  public String displayName() {
    return displayName;
  }

  /** The HMAC the registry computes. */
  public Algorithm mac() {
    return mac;
  }

  /** Bytes of the (truncated) digest carried in the Keyed Message Digest field. */
  public int digestLength() {
    return digestLength;
  }

  public boolean legacy() {
    return legacy;
  }

  /** Looks an algorithm up by its display name, case-insensitively. */
  public static IntegrityAlgorithm ofName(String name) {
    for (IntegrityAlgorithm a : values()) {
      if (a.displayName.equalsIgnoreCase(name)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "integrity algorithm: " + name + " (expected: HMAC-MD5-96 or HMAC-SHA-256-128)");
  }
}
