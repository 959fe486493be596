package dev.portcullis.pdp.policy.mls;

import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Connection;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.StorePaths;
import dev.portcullis.state.Versioned;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MLS sessions shared by a fleet of PDPs, as MYSEA's Trusted Path Server held them for its servers
 * (the MYSEA thesis, 2.3.3): one session per subject, whichever PEP and PDP took the LOGIN, so an
 * ACCESS decided on any PDP sees the subject's current level.
 *
 * <p>Each session is one entry {@code /mls/sessions/SUBJECT}, leased to the PDP that took the LOGIN
 * (it ends when that PDP stops or is cut off for longer than the store's session timeout), holding
 * {@code v1 RANK CATEGORY,CATEGORY}. Labels are not secret; nothing else is stored.
 *
 * <ul>
 *   <li><b>cached</b> (default): every PDP keeps a view fed by a watch and decides from it: nothing
 *       on the per-decision path goes to the store. Each change calls the PDP back, which decides
 *       its installed requests again and pushes what changed.
 *   <li><b>linearizable</b>: a new decision reads the entry as of every write whose DEC has been
 *       sent, as MYSEA asked its TPS per connection: from memory under a read lease that each write
 *       revokes before its DEC ({@link StateStore#leasedReads}), else after a {@code sync};
 *       re-evaluations use the view.
 * </ul>
 *
 * While the store is cut off, every lookup fails closed ({@link Unavailable}): decisions that need
 * a session are denied, installed ones are removed when re-evaluated.
 *
 * <p>A session entry counts only while the store session holding its lease is {@link
 * StateStore#live} (docs/security.md, principle 8): after a quorum outage longer than the session
 * timeout, a PDP's old ZooKeeper session lives on in the ensemble for one more timeout, and its
 * entries with it; nobody decides from them (the subject has no session), and a LOGIN never writes
 * into one (it is created anew under the writer's live session), so a LOGIN answered Install is
 * durable.
 */
final class FleetSessions implements SessionTable {
  private static final Logger log = LoggerFactory.getLogger(FleetSessions.class);
  static final String ROOT = "/mls/sessions";

  private final StateStore store;
  private final boolean linearizable;
  private final Consumer<Predicate<PolicyRequest>> changed;

  /** A session as the view holds it: its label and the store session holding its lease. */
  private record Held(Label label, long owner) {}

  private final Map<String, Held> view = new ConcurrentHashMap<>();
  private final StateStore.Subscription watch;

  /** Linearizable mode's reads: under a lease that every write of a session revokes. */
  private final StateStore.LeasedReads leased;

  private volatile boolean ready;
  private volatile boolean connected = true;

  FleetSessions(StateStore store, boolean linearizable, Consumer<Predicate<PolicyRequest>> changed)
      throws StoreException {
    this.store = store;
    this.linearizable = linearizable;
    this.changed = changed;
    this.leased = linearizable ? store.leasedReads(ROOT, StateStore.READ_LEASE) : null;
    CountDownLatch first = new CountDownLatch(1);
    store.onConnectionChange(this::connection);
    this.watch =
        store.watch(
            ROOT,
            e -> {
              if (e.kind() == StoreEvent.Kind.READY) {
                ready = true;
                first.countDown();
                return;
              }
              String key = e.path().substring(ROOT.length() + 1);
              if (e.kind() == StoreEvent.Kind.PUT) {
                Label l = decode(e.value().data());
                if (l == null) {
                  log.warn("fleet session {}: unreadable entry ignored", e.path());
                  return;
                }
                Held was = view.put(key, new Held(l, e.value().owner()));
                if (was != null && l.equals(was.label())) {
                  return; // our own write, already in the view (or its lease moved)
                }
              } else if (view.remove(key) == null) {
                return;
              }
              if (ready) {
                changed.accept(decidedBy(key));
              }
            });
    try {
      if (!first.await(30, TimeUnit.SECONDS)) {
        watch.close();
        closeLeased();
        throw new StoreException(store.describe() + ": fleet sessions not read in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      watch.close();
      closeLeased();
      throw new StoreException(store.describe() + ": interrupted reading fleet sessions");
    }
  }

  private void connection(Connection c) {
    boolean up = c.up();
    if (up != connected) {
      connected = up;
      if (up) {
        log.info("fleet sessions: store back, deciding from it again");
      } else {
        log.warn(
            "fleet sessions: store {}, failing closed: decisions that need a session are denied",
            c);
      }
      changed.accept(r -> true); // every installed decision is decided again either way
    }
  }

  static String path(String key) {
    return ROOT + "/" + key;
  }

  static byte[] encode(Label l) {
    return ("v1 " + l.rank() + " " + String.join(",", l.categories()))
        .getBytes(StandardCharsets.UTF_8);
  }

  static Label decode(byte[] b) {
    String[] f = new String(b, StandardCharsets.UTF_8).split(" ", -1);
    if (f.length != 3 || !f[0].equals("v1") || !f[1].matches("[0-9]{1,5}")) {
      return null;
    }
    Set<String> cats = new LinkedHashSet<>();
    if (!f[2].isEmpty()) {
      cats.addAll(Arrays.asList(f[2].split(",")));
    }
    return new Label(Integer.parseInt(f[1]), cats);
  }

  @Override
  public String key(String pepId, String subject) {
    return StorePaths.segment(subject); // one session per subject, fleet-wide
  }

  @Override
  public Label get(String key, boolean fresh) throws Unavailable {
    if (!connected) {
      throw new Unavailable("fleet session store unreachable: failing closed");
    }
    if (!(fresh && linearizable)) {
      Held h = view.get(key);
      return h == null || !store.live(h.owner()) ? null : h.label();
    }
    try {
      Optional<Versioned> v = leased.read(path(key));
      return v.filter(x -> store.live(x.owner())).map(x -> decode(x.data())).orElse(null);
    } catch (StoreException e) {
      throw new Unavailable("fleet session store: " + e.getMessage());
    }
  }

  @Override
  public Label labelOf(String subject) throws Unavailable {
    return get(key(null, subject), false);
  }

  @Override
  public void put(String key, Label label) throws Unavailable {
    if (!connected) {
      throw new Unavailable("fleet session store unreachable: no session can be opened");
    }
    try {
      // In place where a live session holds it (a session opened elsewhere moves, its lease
      // staying with the PDP that opened it: deleting and creating would show every watcher a
      // logout first); created anew under this PDP's session where the holder is gone.
      if (!store.putLeased(path(key), encode(label))) {
        throw new Unavailable("fleet session of " + key + " changed meanwhile: try again");
      }
      Optional<Versioned> written = store.read(path(key));
      if (written.isEmpty() || !store.live(written.get().owner())) {
        throw new Unavailable("fleet session of " + key + " not held by a live session: try again");
      }
      // no member answers from what was there before once the DEC is out (docs/fleet.md)
      store.revokeLeases(ROOT, path(key), StateStore.READ_LEASE);
      Held was = view.put(key, new Held(label, written.get().owner()));
      if (was == null || !label.equals(was.label())) {
        changed.accept(decidedBy(key)); // this PDP's own decisions for the subject, too
      }
    } catch (StoreException e) {
      throw new Unavailable("fleet session store: " + e.getMessage());
    }
  }

  @Override
  public void remove(String key) {
    try {
      store.delete(path(key), Versioned.ANY);
      store.revokeLeases(ROOT, path(key), StateStore.READ_LEASE);
    } catch (StoreException e) {
      log.warn("fleet session {} not removed from the store: {}", key, e.getMessage());
    }
    if (view.remove(key) != null) {
      changed.accept(decidedBy(key));
    }
  }

  @Override
  public int size() {
    return view.size();
  }

  @Override
  public java.util.List<Open> list() {
    java.util.List<Open> all = new java.util.ArrayList<>();
    view.forEach(
        (key, held) -> {
          if (store.live(held.owner())) {
            all.add(new Open(null, StorePaths.name(key), held.label()));
          }
        });
    return all;
  }

  @Override
  public String describe() {
    return "fleet sessions ("
        + (linearizable ? "linearizable" : "cached")
        + ") in "
        + store.describe();
  }

  @Override
  public void close() {
    watch.close();
    closeLeased();
  }

  private void closeLeased() {
    if (leased != null) {
      leased.close();
    }
  }
}
