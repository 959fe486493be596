package dev.portcullis.pcmm;

import io.netty.util.concurrent.EventExecutor;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A policy server's books: the gates held, by CMTS and Gate ID, and each subscriber's gates with
 * the Gate-Sets in flight or in doubt for it (Gate ID 0), so that a policy deciding a new gate sees
 * them all.
 *
 * <p>One owner (docs/architecture.md, "Who owns each piece of state"): one of the server's event
 * loops makes every change, each submitted to it through the methods below that return a stage (a
 * change asked for on that loop is made at once); nobody else writes them and no lock is taken.
 * What they hold is published as values (a subscriber's gates are one immutable list with the stamp
 * of its last change, replaced whole), so a look-up ({@link #get}, {@link #all}, {@link #of}) is
 * read on the caller's thread without a hop. A Gate-Set is decided on the caller's thread (or where
 * an asynchronous policy completes it) on the subscriber's gates as published, and the owner files
 * it only if that subscriber's gates have not changed meanwhile (their stamp); otherwise it is
 * decided again, on the owner, on what is held then. So no decision is filed on gates that have
 * changed, and two Gate-Sets for one subscriber cannot both pass a limit that allows one. The
 * policy holds no lock while it decides: a slow one called off the owner (the gate API's loop, an
 * application's thread) holds up nobody else; on the owner (a Gate-Set asked from a CMTS's answer,
 * a decision made again) a synchronous policy holds up every link, which is why {@link
 * GatePolicy#decide} must be prompt and a policy that waits implements {@code decideAsync}.
 */
final class GateBooks {
  /** A gate's key: its CMTS and Gate ID (a record: no string made for each look-up). */
  private record Key(String cmts, int gateId) {
    static Key of(Gate g) {
      return new Key(g.cmts(), g.gateId());
    }
  }

  /** How often a decision is made again because the subscriber's gates changed meanwhile. */
  static final int ATTEMPTS = 16;

  /**
   * A subscriber's gates and Gate-Sets in flight or in doubt, and the stamp of their last change.
   */
  private record Held(List<Gate> gates, long stamp) {
    static final Held NONE = new Held(List.of(), 0);
  }

  private final EventExecutor owner;
  private final Executor onOwner; // the owner, running at once what is asked on it

  // written by the owner only; read by anyone (each value immutable)
  private final Map<Key, Gate> gates = new ConcurrentHashMap<>();
  private final Map<InetAddress, Held> bySubscriber = new ConcurrentHashMap<>();
  private long stamps; // the last stamp given; the owner's

  /** Books changed on {@code owner} (an event loop, which also runs their timers). */
  GateBooks(EventExecutor owner) {
    this.owner = owner;
    this.onOwner =
        task -> {
          if (owner.inEventLoop()) {
            task.run();
          } else {
            owner.execute(task);
          }
        };
  }

  /**
   * Makes {@code change} on the owner (at once when asked there); the stage completes there with
   * its result.
   */
  <T> CompletableFuture<T> change(Supplier<T> change) {
    try {
      return CompletableFuture.supplyAsync(change, onOwner);
    } catch (RejectedExecutionException stopped) {
      return CompletableFuture.failedFuture(stopped); // the server stopped: nothing changes
    }
  }

  /** Runs {@code task} on the owner after {@code millis}. */
  void later(Runnable task, long millis) {
    if (!owner.isShuttingDown()) {
      owner.schedule(task, millis, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Decides {@code inFlight}'s request and, if allowed, files it until its answer ({@link
   * #unfile}); completes with null, nothing decided, when a Gate-Set for the same request on the
   * same CMTS is in doubt. If the subscriber's gates changed while the policy decided {@value
   * #ATTEMPTS} times running, the Gate-Set is denied, saying so: refused, never filed on a decision
   * made on gates that were no longer there. A policy that throws or fails fails the stage.
   */
  CompletableFuture<GatePolicy.Verdict> reserve(Gate inFlight, GatePolicy policy) {
    return reserve(inFlight, policy, 0);
  }

  private CompletableFuture<GatePolicy.Verdict> reserve(
      Gate inFlight, GatePolicy policy, int attempt) {
    if (attempt == ATTEMPTS) {
      return CompletableFuture.completedFuture(
          GatePolicy.Verdict.deny(
              "the subscriber's gates changed while the policy decided, "
                  + ATTEMPTS
                  + " times running; try again"));
    }
    InetAddress subscriber = subscriber(inFlight);
    Held seen = held(subscriber);
    for (Gate g : seen.gates()) {
      if (g.state() == Gate.IN_DOUBT
          && g.cmts().equals(inFlight.cmts())
          && g.request().equals(inFlight.request())) {
        // the same flows' Gate-Set is in doubt: it may have made this gate already
        return CompletableFuture.completedFuture(null);
      }
    }
    CompletableFuture<GatePolicy.Verdict> decided;
    try {
      decided = policy.decideAsync(inFlight.request(), seen.gates()).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return decided.thenComposeAsync(
        v -> {
          // on the owner
          if (held(subscriber).stamp() != seen.stamp()) {
            // decided on gates that changed meanwhile: again, on those held now
            return reserve(inFlight, policy, attempt + 1);
          }
          if (v.allowed()) {
            file(inFlight);
          }
          return CompletableFuture.completedFuture(v);
        },
        onOwner);
  }

  /**
   * Decides a change of {@code gate} to {@code changed}, the gate not counted against itself;
   * completes with null if {@code gate} is not held as it is (deleted, or changed since).
   */
  CompletableFuture<GatePolicy.Verdict> decideChange(
      Gate gate, GateRequest changed, GatePolicy policy) {
    if (!gate.equals(gates.get(Key.of(gate)))) {
      return CompletableFuture.completedFuture(null);
    }
    List<Gate> others = new ArrayList<>(held(subscriber(gate)).gates());
    others.remove(gate);
    try {
      return policy.decideAsync(changed, others).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The gates {@code affected} selects that {@code decide} no longer allows, each with its reason
   * (the stage {@code decide} gives completes with null for a gate still allowed); a gate is
   * decided without itself and without those already doomed, one after another. Decided on the
   * books as published when asked (each subscriber's gates as one value): what changes meanwhile is
   * the books' next change's to settle (a deletion of a gate no longer held finds nothing to
   * unfile).
   */
  CompletableFuture<Map<Gate, String>> doomed(
      Predicate<Gate> affected, BiFunction<Gate, List<Gate>, CompletionStage<String>> decide) {
    record Todo(Gate gate, List<Gate> subscribers) {}
    List<Todo> todo = new ArrayList<>();
    for (Held h : bySubscriber.values()) {
      for (Gate g : h.gates()) {
        if (g.gateId() != 0 && affected.test(g)) {
          todo.add(new Todo(g, h.gates()));
        }
      }
    }
    // by identity: the books hold one instance of each gate (records compare whole requests);
    // written by one step after another, each after the one before it completed
    Map<Gate, String> why = new IdentityHashMap<>();
    return Stages.<Todo, String>inTurn(
            todo,
            t -> {
              List<Gate> others = new ArrayList<>();
              for (Gate o : t.subscribers()) {
                if (o != t.gate() && !why.containsKey(o)) {
                  others.add(o);
                }
              }
              return decide
                  .apply(t.gate(), others)
                  .thenApply(
                      no -> {
                        if (no != null) {
                          why.put(t.gate(), no);
                        }
                        return no;
                      });
            },
            no -> false,
            all -> null)
        .thenApply(x -> why);
  }

  /**
   * Unfiles the Gate-Set {@code inFlight} and files the gate it made, unless a gate with its key is
   * held: then completes with that gate, and nothing filed.
   */
  CompletableFuture<Gate> settle(Gate inFlight, Gate g) {
    return change(() -> settleHere(inFlight, g));
  }

  /** Puts {@code now} in {@code was}'s place; false (nothing filed) if {@code was} is not held. */
  CompletableFuture<Boolean> replace(Gate was, Gate now) {
    return change(() -> replaceHere(was, now));
  }

  /** Unfiles {@code g}; true if it was filed. */
  CompletableFuture<Boolean> unfile(Gate g) {
    return change(() -> unfileHere(g));
  }

  /** Unfiles every gate, and every Gate-Set in doubt, on {@code cmts} (given to another member). */
  CompletableFuture<Void> unfileAll(String cmts) {
    return change(
        () -> {
          gates.values().removeIf(g -> g.cmts().equals(cmts));
          for (InetAddress subscriber : List.copyOf(bySubscriber.keySet())) {
            Held h = held(subscriber);
            List<Gate> kept = new ArrayList<>(h.gates());
            if (kept.removeIf(
                g -> g.cmts().equals(cmts) && (g.gateId() != 0 || g.state() == Gate.IN_DOUBT))) {
              put(subscriber, kept);
            }
          }
          return null;
        });
  }

  /** The gate held under {@code cmts} and {@code gateId}, or null. */
  Gate get(String cmts, int gateId) {
    return gates.get(new Key(cmts, gateId));
  }

  /** The gates held now. */
  List<Gate> all() {
    return List.copyOf(gates.values());
  }

  /** The gates held now on {@code cmts}. */
  List<Gate> of(String cmts) {
    return gates.values().stream().filter(g -> g.cmts().equals(cmts)).toList();
  }

  // ---- the owner's side: called on the owner's thread only
  // ---------------------------------------

  /** On the owner: as {@link #settle}. */
  Gate settleHere(Gate inFlight, Gate g) {
    unfileHere(inFlight);
    return fileIfAbsentHere(g);
  }

  /** On the owner: files {@code g} unless a gate with its key is held: then that gate. */
  Gate fileIfAbsentHere(Gate g) {
    owned();
    Gate held = gates.get(Key.of(g));
    if (held == null) {
      file(g);
    }
    return held;
  }

  /** On the owner: as {@link #replace}. */
  boolean replaceHere(Gate was, Gate now) {
    if (!unfileHere(was)) {
      return false;
    }
    file(now);
    return true;
  }

  /** On the owner: files a Gate-Set in doubt (Gate ID 0), counted against its subscriber. */
  void fileInDoubtHere(Gate g) {
    file(g);
  }

  /** On the owner: unfiles {@code g}; true if it was filed. */
  boolean unfileHere(Gate g) {
    owned();
    boolean had = g.gateId() != 0 && gates.remove(Key.of(g)) != null;
    InetAddress subscriber = subscriber(g);
    List<Gate> l = held(subscriber).gates();
    for (int i = 0; i < l.size(); i++) {
      Gate x = l.get(i);
      if (x.cmts().equals(g.cmts())
          && x.gateId() == g.gateId()
          && x.state() == g.state()
          && x.request().equals(g.request())) {
        List<Gate> kept = new ArrayList<>(l);
        kept.remove(i);
        put(subscriber, kept);
        had |= g.gateId() == 0;
        break;
      }
    }
    return had;
  }

  private void file(Gate g) {
    owned();
    if (g.gateId() != 0) {
      gates.put(Key.of(g), g);
    }
    InetAddress subscriber = subscriber(g);
    List<Gate> l = new ArrayList<>(held(subscriber).gates());
    l.add(g);
    put(subscriber, l);
  }

  /** On the owner: {@code subscriber}'s gates are {@code now}, stamped as changed. */
  private void put(InetAddress subscriber, List<Gate> now) {
    if (now.isEmpty()) {
      bySubscriber.remove(subscriber);
    } else {
      bySubscriber.put(subscriber, new Held(List.copyOf(now), ++stamps));
    }
  }

  /** {@code subscriber}'s gates as published, with their stamp (0: none held). */
  private Held held(InetAddress subscriber) {
    Held h = bySubscriber.get(subscriber);
    return h == null ? Held.NONE : h;
  }

  private void owned() {
    if (!owner.inEventLoop()) {
      throw new IllegalStateException(
          "the PCMM books are changed on their owner's event loop only, not on "
              + Thread.currentThread().getName());
    }
  }

  private static InetAddress subscriber(Gate g) {
    return g.request().subscriber().address();
  }
}
