package dev.portcullis.pcmm;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * A policy server's books: the gates held, by CMTS and Gate ID, and each subscriber's gates with
 * the Gate-Sets in flight for it (Gate ID 0), so that a policy deciding a new gate sees them all.
 *
 * <p>The policy is never called under the books' lock (docs/architecture.md, "Who owns each piece
 * of state"): a decision is made on a copy of the subscriber's gates, outside it, and filed only if
 * that subscriber's gates have not changed meanwhile (each change stamps them); otherwise it is
 * made again on what is held then. So a slow policy holds up nobody else's gates, no decision is
 * made on gates that have changed, and two Gate-Sets for one subscriber cannot both pass a limit
 * that allows one. The lock guards only the maps, for as long as a look-up or a filing takes.
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

  /** A subscriber's gates and Gate-Sets in flight, and the stamp of their last change. */
  private static final class Held {
    final List<Gate> gates = new ArrayList<>(2);
    long stamp;
  }

  /** What a decision was made on: the subscriber's gates, and their stamp then (0: none held). */
  private record Seen(List<Gate> gates, long stamp) {}

  private final Map<Key, Gate> gates = new HashMap<>();
  private final Map<InetAddress, Held> bySubscriber = new HashMap<>();
  private long stamps; // the last stamp given

  /**
   * Decides {@code inFlight}'s request (outside the lock); if allowed, files it until its answer
   * ({@link #unfile}). Null, nothing decided, when a Gate-Set for the same request on the same CMTS
   * is in doubt. If the subscriber's gates changed while the policy decided {@value #ATTEMPTS}
   * times running, the Gate-Set is denied, saying so: refused, never filed on a decision made on
   * gates that were no longer there.
   */
  GatePolicy.Verdict reserve(Gate inFlight, GatePolicy policy) {
    InetAddress subscriber = subscriber(inFlight);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Seen seen;
      synchronized (this) {
        for (Gate g : ofSubscriber(inFlight)) {
          if (g.state() == Gate.IN_DOUBT
              && g.cmts().equals(inFlight.cmts())
              && g.request().equals(inFlight.request())) {
            return null; // the same flows' Gate-Set is in doubt: it may have made this gate already
          }
        }
        seen = seen(subscriber);
      }
      GatePolicy.Verdict v = policy.decide(inFlight.request(), seen.gates());
      synchronized (this) {
        if (stamp(subscriber) != seen.stamp()) {
          continue; // decided on gates that changed meanwhile: again, on those held now
        }
        if (v.allowed()) {
          file(inFlight);
        }
        return v;
      }
    }
    return GatePolicy.Verdict.deny(
        "the subscriber's gates changed while the policy decided, "
            + ATTEMPTS
            + " times running; try again");
  }

  /**
   * Decides a change of {@code gate} to {@code changed} (outside the lock), the gate not counted
   * against itself; null if {@code gate} is not held as it is (deleted, or changed since).
   */
  GatePolicy.Verdict decideChange(Gate gate, GateRequest changed, GatePolicy policy) {
    List<Gate> others;
    synchronized (this) {
      if (!gate.equals(gates.get(Key.of(gate)))) {
        return null;
      }
      others = new ArrayList<>(ofSubscriber(gate));
    }
    others.remove(gate);
    return policy.decide(changed, others);
  }

  /**
   * The gates {@code affected} selects that {@code decide} no longer allows, each with its reason;
   * a gate is decided without itself and without those already doomed. Decided on a copy of the
   * books taken at once, outside the lock: what changes meanwhile is the books' next filing's to
   * settle (a deletion of a gate no longer held finds nothing to unfile).
   */
  Map<Gate, String> doomed(Predicate<Gate> affected, BiFunction<Gate, List<Gate>, String> decide) {
    List<Gate> all;
    Map<InetAddress, List<Gate>> subscribers = new HashMap<>();
    synchronized (this) {
      all = new ArrayList<>(gates.values());
      for (Map.Entry<InetAddress, Held> e : bySubscriber.entrySet()) {
        subscribers.put(e.getKey(), List.copyOf(e.getValue().gates));
      }
    }
    // by identity: the books hold one instance of each gate (records compare whole requests)
    Map<Gate, String> why = new IdentityHashMap<>();
    for (Gate g : all) {
      if (!affected.test(g)) {
        continue;
      }
      List<Gate> others = new ArrayList<>();
      for (Gate o : subscribers.getOrDefault(subscriber(g), List.of())) {
        if (o != g && !why.containsKey(o)) {
          others.add(o);
        }
      }
      String no = decide.apply(g, others);
      if (no != null) {
        why.put(g, no);
      }
    }
    return why;
  }

  /** Unfiles the Gate-Set {@code inFlight} and files the gate it made, as {@link #fileIfAbsent}. */
  synchronized Gate settle(Gate inFlight, Gate g) {
    unfile(inFlight);
    return fileIfAbsent(g);
  }

  /** Files {@code g} unless a gate with its key is held: then that gate, and nothing filed. */
  synchronized Gate fileIfAbsent(Gate g) {
    Gate held = gates.get(Key.of(g));
    if (held == null) {
      file(g);
    }
    return held;
  }

  /** Puts {@code now} in {@code was}'s place; false (nothing filed) if {@code was} is not held. */
  synchronized boolean replace(Gate was, Gate now) {
    if (!unfile(was)) {
      return false;
    }
    file(now);
    return true;
  }

  /** The gate held under {@code cmts} and {@code gateId}, or null. */
  synchronized Gate get(String cmts, int gateId) {
    return gates.get(new Key(cmts, gateId));
  }

  synchronized List<Gate> all() {
    return List.copyOf(gates.values());
  }

  synchronized List<Gate> of(String cmts) {
    return gates.values().stream().filter(g -> g.cmts().equals(cmts)).toList();
  }

  /** Files a Gate-Set in doubt (Gate ID 0): counted against its subscriber until unfiled. */
  synchronized void fileInDoubt(Gate g) {
    file(g);
  }

  /** Unfiles every gate, and every Gate-Set in doubt, on {@code cmts} (given to another member). */
  synchronized void unfileAll(String cmts) {
    gates.values().removeIf(g -> g.cmts().equals(cmts));
    for (Held h : bySubscriber.values()) {
      if (h.gates.removeIf(
          g -> g.cmts().equals(cmts) && (g.gateId() != 0 || g.state() == Gate.IN_DOUBT))) {
        h.stamp = ++stamps;
      }
    }
    bySubscriber.values().removeIf(h -> h.gates.isEmpty());
  }

  /** Unfiles {@code g}; true if it was filed. */
  synchronized boolean unfile(Gate g) {
    boolean had = g.gateId() != 0 && gates.remove(Key.of(g)) != null;
    Held h = bySubscriber.get(subscriber(g));
    if (h != null) {
      List<Gate> l = h.gates;
      for (int i = 0; i < l.size(); i++) {
        Gate x = l.get(i);
        if (x.cmts().equals(g.cmts())
            && x.gateId() == g.gateId()
            && x.state() == g.state()
            && x.request().equals(g.request())) {
          l.remove(i);
          h.stamp = ++stamps;
          had |= g.gateId() == 0;
          break;
        }
      }
      if (l.isEmpty()) {
        bySubscriber.remove(subscriber(g));
      }
    }
    return had;
  }

  private void file(Gate g) {
    if (g.gateId() != 0) {
      gates.put(Key.of(g), g);
    }
    Held h = bySubscriber.computeIfAbsent(subscriber(g), a -> new Held());
    h.gates.add(g);
    h.stamp = ++stamps;
  }

  /** Under the lock. */
  private List<Gate> ofSubscriber(Gate g) {
    Held h = bySubscriber.get(subscriber(g));
    return h == null ? List.of() : h.gates;
  }

  /** Under the lock: a copy of {@code subscriber}'s gates, with their stamp. */
  private Seen seen(InetAddress subscriber) {
    Held h = bySubscriber.get(subscriber);
    return h == null ? new Seen(List.of(), 0) : new Seen(List.copyOf(h.gates), h.stamp);
  }

  /** Under the lock: the stamp of {@code subscriber}'s gates' last change (0: none held). */
  private long stamp(InetAddress subscriber) {
    Held h = bySubscriber.get(subscriber);
    return h == null ? 0 : h.stamp;
  }

  private static InetAddress subscriber(Gate g) {
    return g.request().subscriber().address();
  }
}
