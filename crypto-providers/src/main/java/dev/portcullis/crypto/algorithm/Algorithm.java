package dev.portcullis.crypto.algorithm;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The algorithms the registry chooses providers for. Names are the JCA standard names, which are
 * also the names used in {@code crypto-providers.xml}.
 *
 * <p>MD5 and SHA-1 based algorithms are {@linkplain #legacy() legacy}: only protocols that demand
 * them (the COPS Integrity object's HMAC-MD5 profile, the ROSA packet header's selectable MAC) may
 * use them, and the configuration must say so explicitly.
 */
public enum Algorithm {
  HMAC_MD5("HmacMD5", Kind.MAC, true, 16),
  HMAC_SHA1("HmacSHA1", Kind.MAC, true, 20),
  HMAC_SHA256("HmacSHA256", Kind.MAC, false, 32),
  HMAC_SHA384("HmacSHA384", Kind.MAC, false, 48),
  HMAC_SHA512("HmacSHA512", Kind.MAC, false, 64),
  AES_GCM("AES/GCM/NoPadding", Kind.CIPHER, false, 16),
  AES_CTR("AES/CTR/NoPadding", Kind.CIPHER, false, 0),
  AES_CBC("AES/CBC/PKCS5Padding", Kind.CIPHER, false, 0),
  SHA_256("SHA-256", Kind.DIGEST, false, 32),
  SHA_512("SHA-512", Kind.DIGEST, false, 64);

  /** The JCA engine class an algorithm belongs to. */
  public enum Kind {
    MAC("Mac"),
    CIPHER("Cipher"),
    DIGEST("MessageDigest");

    private final String jcaType;

    Kind(String jcaType) {
      this.jcaType = jcaType;
    }

    /** The JCA service type, as in {@link java.security.Provider.Service#getType()}. */
    public String jcaType() {
      return jcaType;
    }
  }

  private static final Map<String, Algorithm> BY_NAME =
      Arrays.stream(values())
          .collect(
              Collectors.collectingAndThen(
                  Collectors.toMap(a -> a.jcaName, Function.identity()),
                  Collections::unmodifiableMap));

  private final String jcaName;
  private final Kind kind;
  private final boolean legacy;
  private final int outputLength;

  Algorithm(String jcaName, Kind kind, boolean legacy, int outputLength) {
    this.jcaName = jcaName;
    this.kind = kind;
    this.legacy = legacy;
    this.outputLength = outputLength;
  }

  /** The JCA standard name, e.g. {@code HmacSHA256} or {@code AES/GCM/NoPadding}. */
  public String jcaName() {
    return jcaName;
  }

  public Kind kind() {
    return kind;
  }

  /** True for MD5 and SHA-1 based algorithms, which must be enabled explicitly. */
  public boolean legacy() {
    return legacy;
  }

  /**
   * Length in bytes of the MAC or digest, or of the authentication tag for AES-GCM; 0 for
   * unauthenticated ciphers.
   */
  public int outputLength() {
    return outputLength;
  }

  /** The JCA name of the key algorithm ({@code HmacSHA256}, {@code AES}). */
  public String keyAlgorithm() {
    return kind == Kind.CIPHER ? "AES" : jcaName;
  }

  /**
   * Looks an algorithm up by its JCA name (exact spelling, as in the configuration file).
   *
   * @throws IllegalArgumentException naming the unknown name and the known ones
   */
  public static Algorithm ofJcaName(String name) {
    Algorithm a = BY_NAME.get(name);
    if (a == null) {
      throw new IllegalArgumentException(
          "algorithm: " + name + " (expected one of: " + knownNames() + ")");
    }
    return a;
  }

  /** The known JCA names, comma separated, in declaration order. */
  public static String knownNames() {
    return Arrays.stream(values()).map(Algorithm::jcaName).collect(Collectors.joining(", "));
  }

  /** All algorithms of the given kind. */
  public static List<Algorithm> ofKind(Kind kind) {
    return Arrays.stream(values()).filter(a -> a.kind == kind).collect(Collectors.toList());
  }

  /**
   * False for ciphertext lengths no encryption with this algorithm can produce: CBC with PKCS#5
   * padding always yields a positive multiple of the 16-byte block, GCM at least its 16-byte tag.
   * Such input is refused before any provider sees it, because providers disagree on it (several
   * decrypt an empty CBC ciphertext to an empty plaintext). True for every other algorithm.
   */
  public boolean plausibleCiphertextLength(int len) {
    switch (this) {
      case AES_CBC:
        return len > 0 && len % 16 == 0;
      case AES_GCM:
        return len >= 16;
      default:
        return true;
    }
  }

  @Override
  public String toString() {
    return jcaName;
  }
}
