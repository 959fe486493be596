package dev.portcullis.active.packet;

import dev.portcullis.crypto.algorithm.Algorithm;

/**
 * The MAC an active packet carries, chosen per packet by its header byte 2. Tags are truncated as
 * IPsec truncates them (RFC 4868, RFC 2404, RFC 2403); the session key for each is derived
 * separately, so one key never serves two algorithms.
 */
public enum MacAlgorithm {
  /** HMAC-SHA-256 truncated to 128 bits (RFC 4868); the default. */
  HMAC_SHA256_128(1, Algorithm.HMAC_SHA256, 32, 16, "hmac-sha256-128"),
  /** HMAC-SHA-1 truncated to 96 bits (RFC 2404). Legacy: the paper's header offered it. */
  HMAC_SHA1_96(2, Algorithm.HMAC_SHA1, 20, 12, "hmac-sha1-96"),
  /** HMAC-MD5 truncated to 96 bits (RFC 2403). Legacy: the paper's header offered it. */
  HMAC_MD5_96(3, Algorithm.HMAC_MD5, 16, 12, "hmac-md5-96");

  private static final MacAlgorithm[] BY_ID = new MacAlgorithm[4];

  static {
    for (MacAlgorithm m : values()) {
      BY_ID[m.id] = m;
    }
  }

  /** The header byte. */
  public final int id;

  /** The registry algorithm that computes it. */
  public final Algorithm algorithm;

  /** Bytes of session key derived for it. */
  public final int keyLength;

  /** Bytes of tag on the wire. */
  public final int tagLength;

  /** Its name in configuration, on the command line and in the KDF's purpose field. */
  public final String label;

  MacAlgorithm(int id, Algorithm algorithm, int keyLength, int tagLength, String label) {
    this.id = id;
    this.algorithm = algorithm;
    this.keyLength = keyLength;
    this.tagLength = tagLength;
    this.label = label;
  }

  /** True for the algorithms kept only because the paper's format offered them. */
  public boolean legacy() {
    return algorithm.legacy();
  }

  /** The algorithm for a header byte, or null if no algorithm has that number. */
  public static MacAlgorithm ofId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** The algorithm with this label; throws naming the labels there are. */
  public static MacAlgorithm ofLabel(String label) {
    for (MacAlgorithm m : values()) {
      if (m.label.equals(label)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "MAC algorithm: "
            + label
            + " (expected one of hmac-sha256-128, hmac-sha1-96, hmac-md5-96)");
  }
}
