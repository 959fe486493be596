package dev.portcullis.cops.integrity;

import dev.portcullis.crypto.MacKey;
import java.time.Instant;
import java.util.Objects;

/**
 * One manually configured Integrity key: its 32-bit Key ID, algorithm, the keyed MAC handle and the
 * period in which it may be used. RFC 2748 expects keys with overlapping lifetimes, so that a new
 * key can be rolled out while the old one is still accepted.
 */
public final class IntegrityKey {
  private final long keyId;
  private final IntegrityAlgorithm algorithm;
  private final MacKey mac;
  private final Instant notBefore;
  private final Instant notAfter;

  IntegrityKey(
      long keyId, IntegrityAlgorithm algorithm, MacKey mac, Instant notBefore, Instant notAfter) {
    if (keyId < 0 || keyId > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("Key ID: " + keyId + " (expected: 0 to 4294967295)");
    }
    this.keyId = keyId;
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    this.mac = Objects.requireNonNull(mac, "mac");
    this.notBefore = Objects.requireNonNull(notBefore, "notBefore");
    this.notAfter = Objects.requireNonNull(notAfter, "notAfter");
    if (!notAfter.isAfter(notBefore)) {
      throw new IllegalArgumentException(
          "key " + keyId + ": valid until " + notAfter + " (expected: after " + notBefore + ")");
    }
  }

  public long keyId() {
    return keyId;
  }

  public IntegrityAlgorithm algorithm() {
    return algorithm;
  }

  MacKey mac() {
    return mac;
  }

  public Instant notBefore() {
    return notBefore;
  }

  public Instant notAfter() {
    return notAfter;
  }

  /** True if the key may be used at {@code t}: {@code notBefore <= t < notAfter}. */
  public boolean validAt(Instant t) {
    return !t.isBefore(notBefore) && t.isBefore(notAfter);
  }

  @Override
  public String toString() {
    // Never the key bytes.
    return "IntegrityKey["
        + keyId
        + ", "
        + algorithm.displayName()
        + ", "
        + notBefore
        + " .. "
        + notAfter
        + "]";
  }
}
