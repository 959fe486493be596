package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * An immutable provider table: which provider serves each enabled algorithm. The registry publishes
 * a new table atomically on every switch; work that already holds a table finishes on it.
 */
public final class ProviderTable {
  private final long generation;
  private final CryptoConfig config;
  private final Instant published;
  private final Selection[] byOrdinal;
  private final Map<Algorithm, Selection> selections;

  ProviderTable(
      long generation, CryptoConfig config, Instant published, Map<Algorithm, Selection> sel) {
    this.generation = generation;
    this.config = config;
    this.published = published;
    this.byOrdinal = new Selection[Algorithm.values().length];
    sel.forEach((a, s) -> byOrdinal[a.ordinal()] = s);
    this.selections = Collections.unmodifiableMap(new EnumMap<>(sel));
  }

  /** Increases by one with every table the registry publishes. */
  public long generation() {
    return generation;
  }

  public CryptoConfig config() {
    return config;
  }

  public Instant published() {
    return published;
  }

  /** Every enabled algorithm's selection, in {@link Algorithm} order. */
  public Map<Algorithm, Selection> selections() {
    return selections;
  }

  /**
   * The selection for an algorithm.
   *
   * @throws DisabledAlgorithmException if the configuration does not enable it (legacy algorithms
   *     without {@code legacy="true"})
   */
  public Selection selection(Algorithm algorithm) {
    Selection s = byOrdinal[algorithm.ordinal()];
    if (s == null) {
      throw new DisabledAlgorithmException(algorithm, config.source());
    }
    return s;
  }
}
