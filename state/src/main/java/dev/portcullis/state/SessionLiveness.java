package dev.portcullis.state;

import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StateStore.Subscription;
import dev.portcullis.support.Threads;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which store sessions are alive, as a ZooKeeper store sees it (docs/security.md, principle 8): it
 * says its own session is alive with a leased entry {@code /_live/SESSION} written every third of
 * the session timeout, and counts another session alive once it has seen that session's entry
 * written since its own session was last renewed; an entry that goes takes its session with it.
 */
final class SessionLiveness implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SessionLiveness.class);
  static final String ROOT = "/_live";

  private final StateStore store;
  private final String where;
  private final Map<String, Long> confirmed = new ConcurrentHashMap<>(); // by entry
  private final ScheduledExecutorService heartbeat = Threads.owner("zookeeper-store-live");
  private volatile Subscription watch;
  private volatile long session;

  SessionLiveness(StateStore store, String where) {
    this.store = store;
    this.where = where;
  }

  /** Says {@code own} is alive now and every {@code everyMs}; follows the others' saying so. */
  void start(long own, long everyMs) throws StoreException {
    session = own;
    sayAlive();
    watch =
        store.watch(
            ROOT,
            e -> {
              if (e.kind() == StoreEvent.Kind.PUT && e.value().owner() != Versioned.DURABLE) {
                confirmed.put(e.path(), e.value().owner());
              } else if (e.kind() == StoreEvent.Kind.REMOVED) {
                confirmed.remove(e.path());
              }
            });
    heartbeat.scheduleWithFixedDelay(
        () -> {
          try {
            sayAlive();
          } catch (StoreException | RuntimeException e) {
            log.debug("{}: liveness not written: {}", where, e.getMessage());
          }
        },
        everyMs,
        everyMs,
        TimeUnit.MILLISECONDS);
  }

  /** This store's session (0 before it started). */
  long session() {
    return session;
  }

  /** The store's session was lost: who is alive is to be seen again once it is back. */
  void lost() {
    confirmed.clear();
  }

  /** The store is back under {@code renewed}: it says so. */
  void renewed(long renewed) {
    session = renewed;
    try {
      sayAlive();
    } catch (StoreException e) {
      log.warn("{}: liveness not written: {}", where, e.getMessage());
    }
  }

  boolean live(long owner) {
    return owner == Versioned.DURABLE || owner == session || confirmed.containsValue(owner);
  }

  private void sayAlive() throws StoreException {
    long s = session;
    if (s == 0) {
      return;
    }
    String path = ROOT + "/" + Long.toHexString(s);
    Optional<Versioned> now = store.read(path);
    if (now.isEmpty()) {
      store.create(path, new byte[0], Lifetime.LEASED);
    } else if (now.get().owner() == s) {
      store.replace(path, new byte[0], now.get().version()); // a write the others see: alive
    }
  }

  @Override
  public void close() {
    heartbeat.shutdownNow();
    Subscription w = watch;
    if (w != null) {
      w.close();
    }
  }
}
