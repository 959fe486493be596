package dev.portcullis.cops.integrity;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.SecretFile;
import dev.portcullis.support.XmlConfigReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.w3c.dom.Element;

/**
 * Integrity keys from config: {@code <integrity>} with one {@code <key>} per Key ID, each naming
 * its algorithm, a file holding the secret (hex), and its lifetime. Keys with overlapping lifetimes
 * let a key be rolled without dropping a connection: the newest valid key signs, any valid key
 * verifies. Secrets never appear in config files, logs or messages.
 */
public final class IntegrityKeys {
  /** One configured key; the secret stays in its file until {@link #ring} reads it. */
  public record Spec(
      long id,
      IntegrityAlgorithm algorithm,
      Path secretFile,
      boolean create,
      Instant notBefore,
      Instant notAfter,
      String source,
      int line) {
    ConfigException error(String problem) {
      return new ConfigException(source, line, -1, "key", "secret-file", problem, null);
    }
  }

  private IntegrityKeys() {}

  /** Reads the {@code <key>} children of {@code integrity}; paths resolve against {@code dir}. */
  public static List<Spec> parse(Element integrity, Path dir, String source)
      throws ConfigException {
    List<Spec> out = new ArrayList<>();
    for (Element k : children(integrity, "key")) {
      long id = XmlConfigReader.integer(k, "id", 0, 0, Integer.MAX_VALUE);
      String name = attr(k, "algorithm", IntegrityAlgorithm.HMAC_SHA256_128.displayName());
      IntegrityAlgorithm alg;
      try {
        alg = IntegrityAlgorithm.ofName(name);
      } catch (IllegalArgumentException e) {
        throw error(k, "algorithm", e.getMessage());
      }
      if (alg.legacy() && !XmlConfigReader.bool(k, "legacy")) {
        throw error(
            k,
            "legacy",
            alg.displayName()
                + " is a legacy algorithm (MD5): allowed only where a peer offers nothing better,"
                + " and then marked legacy=\"true\"");
      }
      for (Spec s : out) {
        if (s.id() == id) {
          throw error(k, "id", "Key ID " + id + " configured twice");
        }
      }
      Instant nb = instant(k, "not-before", Instant.EPOCH);
      Instant na = instant(k, "not-after", Instant.parse("9999-12-31T23:59:59Z"));
      if (!na.isAfter(nb)) {
        throw error(
            k, "not-after", "not-after: " + na + " (expected: after not-before " + nb + ")");
      }
      String file = attr(k, "secret-file", "");
      out.add(
          new Spec(
              id,
              alg,
              dir.resolve(file).normalize(),
              XmlConfigReader.bool(k, "create"),
              nb,
              na,
              source,
              XmlConfigReader.line(k)));
    }
    return out;
  }

  private static Instant instant(Element e, String a, Instant dflt) throws ConfigException {
    if (!e.hasAttribute(a)) {
      return dflt;
    }
    try {
      return Instant.parse(e.getAttribute(a));
    } catch (DateTimeParseException x) {
      throw error(
          e, a, a + ": " + e.getAttribute(a) + " (expected: a UTC time like 2026-01-01T00:00:00Z)");
    }
  }

  /**
   * A registry of the JDK's providers (built-in defaults), HmacMD5 enabled only if a key needs it.
   */
  public static CryptoRegistry registry(List<Spec> specs) {
    CryptoConfig.Builder b = CryptoConfig.builder().defaults("SunJCE", "SUN").prewarm(false);
    if (specs.stream().anyMatch(s -> s.algorithm().legacy())) {
      b.enableLegacy(Algorithm.HMAC_MD5);
    }
    try {
      return CryptoRegistry.create(b.build());
    } catch (ConfigException e) {
      throw new IllegalStateException(
          "built-in crypto configuration refused: " + e.getMessage(), e);
    }
  }

  /**
   * The registry a component's Integrity MACs (and its other crypto) come from: the product's
   * crypto configuration when the component's file names one ({@code <crypto config=...>}), else
   * the built-in defaults of {@link #registry(List)}.
   *
   * @param cryptoConfig the crypto-providers file, or null for the built-in defaults
   * @throws ConfigException if the file is invalid, or a key needs a legacy algorithm (HMAC-MD5)
   *     the file does not enable
   */
  public static CryptoRegistry registry(Path cryptoConfig, List<Spec> specs)
      throws ConfigException {
    if (cryptoConfig == null) {
      return registry(specs);
    }
    CryptoRegistry r = CryptoRegistry.open(cryptoConfig);
    for (Spec s : specs) {
      Algorithm mac = s.algorithm().mac();
      if (!r.table().config().enabled(mac)) {
        r.close();
        throw s.error(
            "Integrity key "
                + s.id()
                + " uses "
                + s.algorithm().displayName()
                + ", a legacy algorithm "
                + cryptoConfig
                + " does not enable (expected: <algorithm name=\""
                + mac.jcaName()
                + "\" legacy=\"true\"> there)");
      }
    }
    return r;
  }

  /**
   * Reads every secret (making those marked {@code create="true"} that do not exist yet) and builds
   * the ring. Secret bytes are wiped once the registry holds them.
   *
   * @throws ConfigException naming the key's config line and file for a missing, unreadable or
   *     short secret
   */
  public static KeyRing ring(List<Spec> specs, CryptoRegistry registry) throws ConfigException {
    KeyRing.Builder b = KeyRing.builder(registry);
    for (Spec s : specs) {
      byte[] secret = secret(s);
      try {
        b.add(s.id(), s.algorithm(), secret, s.notBefore(), s.notAfter());
      } catch (IllegalArgumentException e) {
        throw s.error(e.getMessage() + " in " + s.secretFile());
      } finally {
        Arrays.fill(secret, (byte) 0);
      }
    }
    return b.build();
  }

  private static byte[] secret(Spec s) throws ConfigException {
    Path f = s.secretFile();
    try {
      if (s.create() && !Files.exists(f)) {
        SecretFile.createRandomHex(f, 32);
      }
      String text = Files.readString(f, StandardCharsets.US_ASCII).replaceAll("\\s+", "");
      byte[] key;
      try {
        key = HexFormat.of().parseHex(text);
      } catch (IllegalArgumentException e) {
        throw s.error("Integrity key " + s.id() + ": " + f + " does not hold hex digits");
      }
      if (key.length < KeyRing.MIN_KEY_LENGTH) {
        Arrays.fill(key, (byte) 0);
        throw s.error(
            "Integrity key "
                + s.id()
                + ": "
                + f
                + " holds "
                + key.length
                + " bytes (expected: at least "
                + KeyRing.MIN_KEY_LENGTH
                + ")");
      }
      return key;
    } catch (NoSuchFileException e) {
      throw s.error(
          "Integrity key "
              + s.id()
              + ": secret file "
              + f
              + " not found (create=\"true\" makes one)");
    } catch (IOException e) {
      throw s.error("Integrity key " + s.id() + ": cannot read " + f + ": " + e);
    }
  }
}
