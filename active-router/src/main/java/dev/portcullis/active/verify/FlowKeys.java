package dev.portcullis.active.verify;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.LogSummary;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys a router holds, shared by all its threads: code secrets per (Ci, epoch), kept as their
 * HKDF-Extract output and fetched from a {@link CodeSource} on a miss without blocking anyone; and
 * session keys per flow, derived on first sight and cached until SET. Both caches are bounded, and
 * every key that leaves them is wiped.
 */
public final class FlowKeys implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FlowKeys.class);

  /**
   * How the caches are sized and timed. {@code maxHighWaterMarks} bounds the high-water marks kept
   * for authenticated flows evicted from a full session cache before their SET; when that many are
   * kept, new flows are refused ({@link Outcome#OVERLOADED}) rather than letting a flow's replay
   * state be forgotten.
   */
  public record Settings(
      long maxSessions,
      long maxCodeSecrets,
      Duration secretIdle,
      Duration retryAfter,
      long maxHighWaterMarks) {
    public static final Settings DEFAULT =
        new Settings(100_000, 1_000, Duration.ofHours(2), Duration.ofSeconds(5));

    /** Settings that keep up to four times {@code maxSessions} high-water marks. */
    public Settings(
        long maxSessions, long maxCodeSecrets, Duration secretIdle, Duration retryAfter) {
      this(maxSessions, maxCodeSecrets, secretIdle, retryAfter, 4 * maxSessions);
    }
  }

  private final CryptoRegistry registry;
  private final SessionKdf kdf;
  private final CodeSource source;
  private final Clock clock;
  private final long skewSeconds;
  private final Cache<FlowId, Session> sessions;
  private final Cache<Long, Secret> secrets;
  private final long retryMillis;

  private final HighWaterMarks highWater;

  /**
   * The time the session cache runs on: the clock as a verifier last read it ({@link #observe}), so
   * a cache read costs no clock read of its own (on this machine a clock read costs ~50 ns, the
   * whole lookup ~150 ns with them). Expiry is in seconds; a few milliseconds late is fine.
   */
  private volatile long lastMillis;

  private final AtomicLong derivations = new AtomicLong();
  private final AtomicLong fetches = new AtomicLong();

  /**
   * Requests to the source (secrets and epoch lists) in flight at most, whatever packets claim:
   * beyond it a packet that would need one more is dropped as {@link Outcome#CODE_UNAVAILABLE}.
   */
  static final int MAX_OUTSTANDING = 64;

  private final AtomicInteger outstanding = new AtomicInteger();
  private final LogSummary fetchFailures;
  private final AnnouncedEpochs announced;

  /** A code secret: its HKDF-Extract output once fetched, or how the fetch went. */
  static final class Secret {
    final CompletableFuture<MacKey> prk;
    final long failedAt; // clock millis of a failure, 0 while pending or ready

    Secret(CompletableFuture<MacKey> prk, long failedAt) {
      this.prk = prk;
      this.failedAt = failedAt;
    }

    /** The prepared secret, or null while pending or after a failure. */
    MacKey ready() {
      return prk.isDone() && !prk.isCompletedExceptionally() ? prk.join() : null;
    }
  }

  public FlowKeys(
      CryptoRegistry registry, CodeSource source, Clock clock, long skewSeconds, Settings s) {
    this.registry = registry;
    this.kdf = new SessionKdf(registry);
    this.source = source;
    this.clock = clock;
    this.skewSeconds = skewSeconds;
    this.retryMillis = s.retryAfter().toMillis();
    this.highWater = new HighWaterMarks(s.maxHighWaterMarks());
    this.lastMillis = clock.millis();
    this.fetchFailures =
        new LogSummary(log, "code-secret fetch failures", Duration.ofMinutes(1), clock);
    this.announced =
        new AnnouncedEpochs(
            source,
            clock,
            skewSeconds,
            outstanding,
            MAX_OUTSTANDING,
            fetchFailures,
            this::prefetch);
    this.sessions =
        Caffeine.newBuilder()
            .maximumSize(s.maxSessions())
            .ticker(() -> TimeUnit.MILLISECONDS.toNanos(lastMillis))
            .executor(Runnable::run)
            .expireAfter(
                new Expiry<FlowId, Session>() {
                  @Override
                  public long expireAfterCreate(FlowId k, Session v, long now) {
                    long until = k.set() + skewSeconds + 1; // SET is inclusive
                    long left = until * 1000 - lastMillis;
                    return left <= 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(left);
                  }

                  @Override
                  public long expireAfterUpdate(FlowId k, Session v, long now, long current) {
                    return expireAfterCreate(k, v, now);
                  }

                  @Override
                  public long expireAfterRead(FlowId k, Session v, long now, long current) {
                    return current;
                  }
                })
            .removalListener(
                (FlowId k, Session v, RemovalCause c) -> {
                  long seen = v.window().close();
                  if (c != RemovalCause.EXPIRED) {
                    highWater.left(k, seen);
                  }
                  v.destroy();
                })
            .build();
    this.secrets =
        Caffeine.newBuilder()
            .maximumSize(s.maxCodeSecrets())
            .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
            .executor(Runnable::run)
            .expireAfterAccess(s.secretIdle())
            .removalListener(
                (Long k, Secret v, RemovalCause c) -> {
                  MacKey prk = v.ready();
                  if (prk != null) {
                    prk.destroy();
                  }
                })
            .build();
  }

  public CryptoRegistry registry() {
    return registry;
  }

  public SessionKdf kdf() {
    return kdf;
  }

  public Clock clock() {
    return clock;
  }

  public long skewSeconds() {
    return skewSeconds;
  }

  /** Reads the clock: what the session cache's expiry then runs on too. */
  long now() {
    long t = clock.millis();
    observe(t);
    return t;
  }

  /** A verifier's reading of the clock: what the session cache's expiry then runs on. */
  void observe(long t) {
    // Follows the clock both ways: after a step back, sessions admitted meanwhile would otherwise
    // expire at once (their SET counted against a time still ahead) until the clock caught up.
    if (t != lastMillis) {
      lastMillis = t; // a volatile write (a full fence on x86) once a millisecond, not per packet
    }
  }

  /** The cached session for a probe, or null. Allocation-free. */
  Session session(FlowId probe) {
    return sessions.getIfPresent(probe);
  }

  private static long key(int code, int epoch) {
    return ((long) code << 32) | (epoch & 0xFFFF_FFFFL);
  }

  /**
   * The prepared secret of (Ci, epoch) if it is here; otherwise starts fetching it (once, however
   * many packets ask) and returns null. {@link #secretState} then says what to do with the packet.
   */
  MacKey prk(int code, int epoch) {
    long k = key(code, epoch);
    Secret s = secrets.getIfPresent(k);
    if (s != null && s.failedAt != 0 && clock.millis() - s.failedAt >= retryMillis) {
      secrets.asMap().remove(k, s); // time to try again
      s = null;
    }
    if (s == null) {
      if (announced.check(code, epoch) != null) {
        return null; // not announced (or not yet known to be): secretState says what to do
      }
      if (outstanding.get() >= MAX_OUTSTANDING) {
        return null;
      }
      // Create the entry inside the cache's compute, start the fetch outside it: a source that
      // answers at once must not re-enter the cache mid-compute.
      Secret[] created = new Secret[1];
      s = secrets.get(k, x -> created[0] = new Secret(new CompletableFuture<>(), 0));
      if (s == created[0]) {
        fetch(code, epoch, s);
      }
    }
    return s.ready();
  }

  /**
   * Starts fetching the secrets of a code's announced epochs, so that the packets parked on the
   * refresh find them when they retry; completes when they are here (or failed).
   */
  private CompletableFuture<?> prefetch(int code, int[] epochs) {
    List<CompletableFuture<?>> due = new ArrayList<>();
    for (int e : epochs) {
      if (prk(code, e) == null) {
        Secret s = secrets.getIfPresent(key(code, e));
        if (s != null) {
          due.add(s.prk);
        }
      }
    }
    return CompletableFuture.allOf(due.toArray(new CompletableFuture<?>[0]));
  }

  private void fetch(int code, int epoch, Secret s) {
    fetches.incrementAndGet();
    outstanding.incrementAndGet();
    long k = key(code, epoch);
    CompletableFuture<byte[]> kci;
    try {
      kci = source.secret(code, epoch);
    } catch (RuntimeException e) {
      kci = CompletableFuture.failedFuture(e);
    }
    kci.whenComplete(
        (bytes, err) -> {
          outstanding.decrementAndGet();
          if (err == null) {
            try {
              s.prk.complete(kdf.prepare(bytes));
              return;
            } catch (RuntimeException e) {
              err = e;
            } finally {
              Arrays.fill(bytes, (byte) 0);
            }
          }
          Throwable cause =
              err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
          fetchFailures.warn(
              "Ci=" + Integer.toUnsignedString(code),
              "code secret for Ci={} epoch={} not fetched: {}",
              Integer.toUnsignedString(code),
              Integer.toUnsignedString(epoch),
              cause.getMessage());
          // Remember the failure so packets are dropped, not parked, until retryAfter.
          secrets
              .asMap()
              .replace(
                  k,
                  s,
                  new Secret(CompletableFuture.failedFuture(cause), Math.max(1, clock.millis())));
          s.prk.completeExceptionally(cause);
        });
  }

  /**
   * For a packet whose secret {@link #prk} did not have: PENDING with the future to wait on,
   * UNKNOWN_CODE or CODE_UNAVAILABLE.
   */
  Outcome secretState(int code, int epoch) {
    Secret s = secrets.getIfPresent(key(code, epoch));
    if (s == null) {
      Outcome g = announced.check(code, epoch);
      return g != null
          ? g
          : outstanding.get() >= MAX_OUTSTANDING ? Outcome.CODE_UNAVAILABLE : Outcome.PENDING;
    }
    if (!s.prk.isDone()) {
      return Outcome.PENDING;
    }
    if (!s.prk.isCompletedExceptionally()) {
      return Outcome.PENDING; // it arrived in between: the retry will find it
    }
    Throwable t = s.prk.handle((v, e) -> e).join();
    return t instanceof CodeSource.UnknownCodeException
        ? Outcome.UNKNOWN_CODE
        : Outcome.CODE_UNAVAILABLE;
  }

  /** Completes when the secret of (Ci, epoch) is here, or its fetch failed. */
  public CompletableFuture<?> secretArrival(int code, int epoch) {
    CompletableFuture<?> refresh = announced.pending(code);
    if (refresh != null) {
      return refresh;
    }
    Secret s = secrets.getIfPresent(key(code, epoch));
    return s == null ? CompletableFuture.completedFuture(null) : s.prk;
  }

  /**
   * Derives a flow's session (its MAC key) without caching it: the caller {@link #admit}s it once a
   * packet of the flow verified. Its replay window starts above the flow's high-water mark, if the
   * flow was here before.
   */
  Session derive(FlowId probe, PacketView p, MacKey prk) {
    Flow flow = Flow.of(p);
    byte[] k = kdf.macKey(prk, flow, p.mac());
    MacKey mac;
    try {
      mac = registry.macKey(p.mac().algorithm, k);
    } finally {
      Arrays.fill(k, (byte) 0);
    }
    ReplayWindow w = highWater.windowFor(probe);
    derivations.incrementAndGet();
    // The payload key is derived on first use, after the MAC verified (Verifier.decrypt).
    return new Session(flow, p.epoch(), mac, null, w);
  }

  /**
   * Caches a session {@link #derive}d for a packet that has just verified, and returns the one to
   * use: the cached one if another thread admitted the flow first (so one replay window), or null
   * if the cache is full of flows whose replay state could not be kept (the packet is then dropped
   * as {@link Outcome#OVERLOADED}). A session not returned is wiped.
   */
  Session admit(FlowId probe, Session s) {
    if (highWater.full()) {
      s.destroy();
      return null;
    }
    FlowId key = probe.copy();
    Session prior = sessions.asMap().putIfAbsent(key, s);
    if (prior != null) {
      s.destroy();
      return prior;
    }
    highWater.carried(key, s.window().highest());
    return s;
  }

  /** High-water marks kept for flows that left the session cache before their SET. */
  public long highWaterMarks() {
    return highWater.size();
  }

  CipherKey encryptionKey(MacKey prk, Flow flow) {
    byte[] k = kdf.encryptionKey(prk, flow);
    try {
      return registry.cipherKey(Algorithm.AES_GCM, k);
    } finally {
      Arrays.fill(k, (byte) 0);
    }
  }

  /** Sessions derived so far (cache misses). */
  public long derivations() {
    return derivations.get();
  }

  /** Code secrets requested from the source so far. */
  public long fetches() {
    return fetches.get();
  }

  /**
   * Applies pending expiries now, wiping the keys of sessions past SET (the caches otherwise do it
   * as packets pass; a router calls this every second so an idle one keeps no stale keys).
   */
  public void expire() {
    long now = now() / 1000;
    sessions.cleanUp();
    secrets.cleanUp();
    highWater.expire(now, skewSeconds);
  }

  /** Sessions in the cache now (after pending expiries are applied). */
  public long sessionCount() {
    expire();
    return sessions.estimatedSize();
  }

  /**
   * Drops every session, wiping its keys; code secrets stay (the next packets derive anew) and so
   * does every flow's replay state, as a high-water mark.
   */
  public void invalidateSessions() {
    sessions.invalidateAll();
    sessions.cleanUp();
  }

  /**
   * Drops every session and code secret, wiping their keys (after a Kci compromise, say); replay
   * state stays, as high-water marks, until each flow's SET.
   */
  public void clear() {
    sessions.invalidateAll();
    secrets.invalidateAll();
    sessions.cleanUp();
    secrets.cleanUp();
  }

  @Override
  public void close() {
    clear();
    highWater.clear();
  }
}
