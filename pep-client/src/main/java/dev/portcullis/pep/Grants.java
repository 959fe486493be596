package dev.portcullis.pep;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * The grants a PDP gave with a validity (the decision data's valid-for), kept so that an
 * enforcement point may admit their subject while no PDP can be asked; nothing else is ever
 * admitted without a PDP. Keyed by subject and scope (the proxy's scope is a listener), each entry
 * expires by the injected {@link Ticker}, and the cache is bounded (the oldest-used go first).
 *
 * <p>A revocation ends every grant of what it revokes: {@link #revoke(String)} a subject when an
 * installed decision of its is removed (solicited or not) and on its LOGOUT, and each of its
 * grants, in every scope, is gone; {@link #revoke(String, String)} it in a scope when a later
 * request there is denied (a denial elsewhere, say a service it never had, says nothing about this
 * scope). Revoking walks the entries (at most {@code maximumSize}); a revocation is rare next to
 * the lookups it protects. Thread-safe.
 */
public final class Grants {
  /** The default bound: subjects times scopes an enforcement point remembers grants for. */
  public static final long DEFAULT_MAXIMUM_SIZE = 100_000;

  private record Key(String subject, String scope) {}

  private final Cache<Key, Long> validFor; // the value: the grant's validity in nanoseconds

  /**
   * @param ticker the time source grants expire by ({@link Ticker#systemTicker()} in production)
   * @param maximumSize how many (subject, scope) grants are kept at most
   */
  public Grants(Ticker ticker, long maximumSize) {
    this.validFor =
        Caffeine.newBuilder()
            .ticker(Objects.requireNonNull(ticker, "ticker"))
            .maximumSize(maximumSize)
            .executor(Runnable::run) // no maintenance on another pool: a revoke is done on return
            .expireAfter(
                new Expiry<Key, Long>() {
                  @Override
                  public long expireAfterCreate(Key k, Long nanos, long now) {
                    return nanos;
                  }

                  @Override
                  public long expireAfterUpdate(Key k, Long nanos, long now, long current) {
                    return nanos; // the latest decision's validity, from when it came
                  }

                  @Override
                  public long expireAfterRead(Key k, Long nanos, long now, long current) {
                    return current;
                  }
                })
            .build();
  }

  /** Remembers {@code subject}'s grant in {@code scope} for {@code validity} from now. */
  public void grant(String subject, String scope, Duration validity) {
    if (validity.isNegative() || validity.isZero()) {
      return;
    }
    validFor.put(new Key(subject, scope), validity.toNanos());
  }

  /**
   * True if {@code subject} holds a grant in {@code scope} that has not expired or been revoked.
   */
  public boolean holds(String subject, String scope) {
    return validFor.getIfPresent(new Key(subject, scope)) != null;
  }

  /** Ends every grant of {@code subject}, in every scope; returns how many there were. */
  public int revoke(String subject) {
    int[] n = {0};
    validFor
        .asMap()
        .keySet()
        .removeIf(
            k -> {
              boolean hit = k.subject().equals(subject);
              n[0] += hit ? 1 : 0;
              return hit;
            });
    return n[0];
  }

  /** Ends {@code subject}'s grant in {@code scope}; returns whether there was one. */
  public boolean revoke(String subject, String scope) {
    return validFor.asMap().remove(new Key(subject, scope)) != null;
  }

  /** Grants held now (expired ones may count until the cache's next maintenance). */
  public long size() {
    validFor.cleanUp();
    return validFor.estimatedSize();
  }
}
