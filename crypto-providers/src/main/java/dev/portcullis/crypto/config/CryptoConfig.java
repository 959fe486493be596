package dev.portcullis.crypto.config;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable, validated provider configuration: for each algorithm an ordered list of provider
 * names, a default list for the rest, which legacy algorithms are enabled, and the switches.
 *
 * <p>Read one from XML with {@link #load(Path)} or {@link #parse(InputStream, String)}, or build
 * one in code with {@link #builder()}.
 */
public final class CryptoConfig {
  /**
   * Default interval at which a watched configuration file is checked for changes: what the schema
   * gives {@code watch-interval} (it is written there, once).
   */
  public static final Duration DEFAULT_WATCH_INTERVAL = CryptoConfigParser.defaultWatchInterval();

  private final String source;
  private final List<String> defaultProviders;
  private final Map<Algorithm, List<String>> preferences;
  private final Map<Algorithm, Boolean> legacyEnabled;
  private final boolean prewarm;
  private final boolean selfTest;
  private final boolean watch;
  private final Duration watchInterval;

  private CryptoConfig(Builder b) {
    this.source = b.source;
    this.defaultProviders = List.copyOf(b.defaultProviders);
    EnumMap<Algorithm, List<String>> prefs = new EnumMap<>(Algorithm.class);
    b.preferences.forEach((a, l) -> prefs.put(a, List.copyOf(l)));
    this.preferences = Collections.unmodifiableMap(prefs);
    this.legacyEnabled = Collections.unmodifiableMap(new EnumMap<>(b.legacyEnabled));
    this.prewarm = b.prewarm;
    this.selfTest = b.selfTest;
    this.watch = b.watch;
    this.watchInterval = b.watchInterval;
  }

  /**
   * Reads and validates a configuration file.
   *
   * @throws ConfigException naming the file, line, column, element and attribute at fault
   */
  public static CryptoConfig load(Path file) throws ConfigException {
    String name = file.toString();
    try (InputStream in = Files.newInputStream(file)) {
      return parse(in, name);
    } catch (NoSuchFileException e) {
      throw new ConfigException(name, "file not found", null);
    } catch (IOException e) {
      throw new ConfigException(name, "cannot read: " + e.getMessage(), e);
    }
  }

  /**
   * Reads and validates a configuration from a stream.
   *
   * @param sourceName the name used in error messages (a file name, "classpath:...")
   * @throws ConfigException naming the source, line, column, element and attribute at fault
   */
  public static CryptoConfig parse(InputStream in, String sourceName) throws ConfigException {
    return CryptoConfigParser.parse(in, sourceName);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder pre-filled with this configuration, for deriving a variant. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.source = source;
    b.defaultProviders.addAll(defaultProviders);
    preferences.forEach((a, l) -> b.preferences.put(a, new ArrayList<>(l)));
    b.legacyEnabled.putAll(legacyEnabled);
    b.prewarm = prewarm;
    b.selfTest = selfTest;
    b.watch = watch;
    b.watchInterval = watchInterval;
    return b;
  }

  /** Where this configuration came from, for messages; {@code "<api>"} when built in code. */
  public String source() {
    return source;
  }

  /** The providers tried for algorithms that have no list of their own. */
  public List<String> defaultProviders() {
    return defaultProviders;
  }

  /** The algorithm's own preference list, if the configuration gives one. */
  public Optional<List<String>> preferences(Algorithm algorithm) {
    return Optional.ofNullable(preferences.get(algorithm));
  }

  /** The providers to try for an algorithm, in order: its own list or the default one. */
  public List<String> candidates(Algorithm algorithm) {
    return preferences.getOrDefault(algorithm, defaultProviders);
  }

  /**
   * Whether the registry serves this algorithm. Non-legacy algorithms always are; legacy ones only
   * when the configuration marks them {@code legacy="true"}.
   */
  public boolean enabled(Algorithm algorithm) {
    return !algorithm.legacy() || legacyEnabled.getOrDefault(algorithm, false);
  }

  public boolean prewarm() {
    return prewarm;
  }

  public boolean selfTest() {
    return selfTest;
  }

  public boolean watch() {
    return watch;
  }

  public Duration watchInterval() {
    return watchInterval;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CryptoConfig)) {
      return false;
    }
    CryptoConfig c = (CryptoConfig) o;
    return defaultProviders.equals(c.defaultProviders)
        && preferences.equals(c.preferences)
        && legacyEnabled.equals(c.legacyEnabled)
        && prewarm == c.prewarm
        && selfTest == c.selfTest
        && watch == c.watch
        && watchInterval.equals(c.watchInterval);
  }

  @Override
  public int hashCode() {
    return Objects.hash(defaultProviders, preferences, legacyEnabled, prewarm, selfTest, watch);
  }

  /**
   * This configuration in the file's format ({@code crypto-providers.xsd}): what {@link #load}
   * reads back as an equal configuration. For tools that write a table, and for tests.
   */
  public String toXml() {
    StringBuilder sb =
        new StringBuilder("<crypto-providers version=\"1\"")
            .append(" prewarm=\"")
            .append(prewarm)
            .append("\" self-test=\"")
            .append(selfTest)
            .append("\" watch=\"")
            .append(watch)
            .append("\" watch-interval=\"")
            .append(watchInterval)
            .append("\">\n  <default>");
    for (String p : defaultProviders) {
      sb.append("<provider name=\"").append(escape(p)).append("\"/>");
    }
    sb.append("</default>\n");
    for (Algorithm a : Algorithm.values()) {
      Optional<List<String>> list = preferences(a);
      boolean legacy = a.legacy() && enabled(a);
      if (list.isEmpty() && !legacy) {
        continue;
      }
      sb.append("  <algorithm name=\"").append(a.jcaName()).append('"');
      if (legacy) {
        sb.append(" legacy=\"true\"");
      }
      sb.append('>');
      for (String p : list.orElse(List.of())) {
        sb.append("<provider name=\"").append(escape(p)).append("\"/>");
      }
      sb.append("</algorithm>\n");
    }
    return sb.append("</crypto-providers>\n").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
  }

  @Override
  public String toString() {
    return "CryptoConfig{source="
        + source
        + ", default="
        + defaultProviders
        + ", preferences="
        + preferences
        + ", legacy="
        + legacyEnabled
        + ", prewarm="
        + prewarm
        + ", selfTest="
        + selfTest
        + ", watch="
        + watch
        + '}';
  }

  /** Builds a configuration in code; {@link #build()} applies the same rules as the parser. */
  public static final class Builder {
    private String source = "<api>";
    private final List<String> defaultProviders = new ArrayList<>();
    private final Map<Algorithm, List<String>> preferences = new EnumMap<>(Algorithm.class);
    private final Map<Algorithm, Boolean> legacyEnabled = new EnumMap<>(Algorithm.class);
    private boolean prewarm = true;
    private boolean selfTest = true;
    private boolean watch = false;
    private Duration watchInterval = DEFAULT_WATCH_INTERVAL;

    private Builder() {}

    public Builder source(String source) {
      this.source = Objects.requireNonNull(source, "source");
      return this;
    }

    /** Replaces the default provider list. */
    public Builder defaults(String... providers) {
      defaultProviders.clear();
      defaultProviders.addAll(List.of(providers));
      return this;
    }

    /** Gives an algorithm its own provider list (replacing any earlier one). */
    public Builder prefer(Algorithm algorithm, String... providers) {
      preferences.put(algorithm, new ArrayList<>(List.of(providers)));
      return this;
    }

    /** Enables a legacy algorithm (HmacMD5, HmacSHA1). */
    public Builder enableLegacy(Algorithm algorithm) {
      legacyEnabled.put(algorithm, true);
      return this;
    }

    public Builder prewarm(boolean prewarm) {
      this.prewarm = prewarm;
      return this;
    }

    public Builder selfTest(boolean selfTest) {
      this.selfTest = selfTest;
      return this;
    }

    public Builder watch(boolean watch) {
      this.watch = watch;
      return this;
    }

    public Builder watchInterval(Duration interval) {
      this.watchInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /**
     * Checks the rules the schema cannot express and builds the configuration.
     *
     * @throws IllegalArgumentException if the default list is empty, a list names a provider twice,
     *     a non-legacy algorithm is marked legacy, or the watch interval is not positive
     */
    public CryptoConfig build() {
      checkList("default", defaultProviders);
      if (defaultProviders.isEmpty()) {
        throw new IllegalArgumentException("default: empty (expected: at least one provider)");
      }
      preferences.forEach((a, l) -> checkList(a.jcaName(), l));
      legacyEnabled.forEach(
          (a, on) -> {
            if (on && !a.legacy()) {
              throw new IllegalArgumentException(
                  "legacy: " + a + " (expected: only MD5 and SHA-1 based algorithms are legacy)");
            }
          });
      if (watchInterval.isNegative() || watchInterval.isZero()) {
        throw new IllegalArgumentException(
            "watch-interval: " + watchInterval + " (expected: a positive duration)");
      }
      return new CryptoConfig(this);
    }

    private static void checkList(String what, List<String> providers) {
      LinkedHashSet<String> seen = new LinkedHashSet<>();
      for (String p : providers) {
        if (p == null || p.isBlank()) {
          throw new IllegalArgumentException(what + ": blank provider name");
        }
        if (!seen.add(p)) {
          throw new IllegalArgumentException(
              what + ": provider " + p + " listed twice (expected: each provider once)");
        }
      }
    }
  }
}
