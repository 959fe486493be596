package dev.portcullis.cops.integrity;

import dev.portcullis.crypto.CryptoRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Integrity keys shared with one PEP (or the PDP): Key ID to key, algorithm and validity.
 * Immutable; build a new ring to add or retire keys.
 */
public final class KeyRing {
  /** Shortest key accepted: 128 bits, whatever the digest is truncated to. */
  public static final int MIN_KEY_LENGTH = 16;

  private final Map<Long, IntegrityKey> keys;

  private KeyRing(Map<Long, IntegrityKey> keys) {
    this.keys = Collections.unmodifiableMap(keys);
  }

  public static Builder builder(CryptoRegistry registry) {
    return new Builder(registry);
  }

  /** The key with this id if it exists and is valid at {@code now}, else null. */
  public IntegrityKey verificationKey(long keyId, Instant now) {
    IntegrityKey k = keys.get(keyId);
    return k != null && k.validAt(now) ? k : null;
  }

  /**
   * The key to sign with at {@code now}: of the valid keys, the one that became valid last (the
   * newest of overlapping keys), ties broken by the higher Key ID.
   *
   * @throws IllegalStateException if no key is valid now
   */
  public IntegrityKey signingKey(Instant now) {
    IntegrityKey best = null;
    for (IntegrityKey k : keys.values()) {
      if (k.validAt(now)
          && (best == null
              || k.notBefore().isAfter(best.notBefore())
              || (k.notBefore().equals(best.notBefore()) && k.keyId() > best.keyId()))) {
        best = k;
      }
    }
    if (best == null) {
      throw new IllegalStateException(
          "no Integrity key is valid at " + now + " (keys: " + keys.values() + ")");
    }
    return best;
  }

  public List<IntegrityKey> keys() {
    return new ArrayList<>(keys.values());
  }

  /** Builds a ring; key bytes are copied into registry MAC handles and may be wiped after. */
  public static final class Builder {
    private final CryptoRegistry registry;
    private final Map<Long, IntegrityKey> keys = new TreeMap<>();

    private Builder(CryptoRegistry registry) {
      this.registry = registry;
    }

    /**
     * Adds a key.
     *
     * @throws IllegalArgumentException for a duplicate Key ID, an empty key or an empty period
     * @throws dev.portcullis.crypto.DisabledAlgorithmException for HMAC-MD5-96 when the crypto
     *     configuration has not enabled the legacy HmacMD5
     */
    public Builder add(
        long keyId, IntegrityAlgorithm algorithm, byte[] key, Instant notBefore, Instant notAfter) {
      if (keys.containsKey(keyId)) {
        throw new IllegalArgumentException("Key ID " + keyId + " added twice");
      }
      if (key.length < MIN_KEY_LENGTH) {
        throw new IllegalArgumentException(
            "key "
                + keyId
                + ": "
                + key.length
                + " bytes (expected: at least "
                + MIN_KEY_LENGTH
                + ", 128 bits)");
      }
      keys.put(
          keyId,
          new IntegrityKey(
              keyId, algorithm, registry.macKey(algorithm.mac(), key), notBefore, notAfter));
      return this;
    }

    public KeyRing build() {
      if (keys.isEmpty()) {
        throw new IllegalArgumentException("key ring: empty (expected: at least one key)");
      }
      return new KeyRing(new TreeMap<>(keys));
    }
  }
}
