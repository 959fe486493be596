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
 * One lock: every decision that depends on the books is made under it, with the filing it leads to.
 */
final class GateBooks {
  /** A gate's key: its CMTS and Gate ID (a record: no string made for each look-up). */
  private record Key(String cmts, int gateId) {
    static Key of(Gate g) {
      return new Key(g.cmts(), g.gateId());
    }
  }

  private final Map<Key, Gate> gates = new HashMap<>();
  private final Map<InetAddress, List<Gate>> bySubscriber = new HashMap<>();

  /**
   * Decides {@code inFlight}'s request; if allowed, files it until its answer ({@link #unfile}).
   * Null, nothing decided, when a Gate-Set for the same request on the same CMTS is in doubt.
   */
  synchronized GatePolicy.Verdict reserve(Gate inFlight, GatePolicy policy) {
    for (Gate g : ofSubscriber(inFlight)) {
      if (g.state() == Gate.IN_DOUBT
          && g.cmts().equals(inFlight.cmts())
          && g.request().equals(inFlight.request())) {
        return null; // the same flows' Gate-Set is in doubt: it may have made this gate already
      }
    }
    GatePolicy.Verdict v = policy.decide(inFlight.request(), List.copyOf(ofSubscriber(inFlight)));
    if (v.allowed()) {
      file(inFlight);
    }
    return v;
  }

  /**
   * Decides a change of {@code gate} to {@code changed}, the gate not counted against itself; null
   * if {@code gate} is not held as it is (deleted, or changed since).
   */
  synchronized GatePolicy.Verdict decideChange(Gate gate, GateRequest changed, GatePolicy policy) {
    if (!gate.equals(gates.get(Key.of(gate)))) {
      return null;
    }
    List<Gate> others = new ArrayList<>(ofSubscriber(gate));
    others.remove(gate);
    return policy.decide(changed, others);
  }

  /**
   * The gates {@code affected} selects that {@code decide} no longer allows, each with its reason;
   * a gate is decided without itself and without those already doomed.
   */
  synchronized Map<Gate, String> doomed(
      Predicate<Gate> affected, BiFunction<Gate, List<Gate>, String> decide) {
    // by identity: the books hold one instance of each gate (records compare whole requests)
    Map<Gate, String> why = new IdentityHashMap<>();
    for (Gate g : gates.values()) {
      if (!affected.test(g)) {
        continue;
      }
      List<Gate> others = new ArrayList<>();
      for (Gate o : ofSubscriber(g)) {
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
    for (List<Gate> l : bySubscriber.values()) {
      l.removeIf(g -> g.cmts().equals(cmts) && (g.gateId() != 0 || g.state() == Gate.IN_DOUBT));
    }
    bySubscriber.values().removeIf(List::isEmpty);
  }

  /** Unfiles {@code g}; true if it was filed. */
  synchronized boolean unfile(Gate g) {
    boolean had = g.gateId() != 0 && gates.remove(Key.of(g)) != null;
    List<Gate> l = bySubscriber.get(subscriber(g));
    if (l != null) {
      for (int i = 0; i < l.size(); i++) {
        Gate x = l.get(i);
        if (x.cmts().equals(g.cmts())
            && x.gateId() == g.gateId()
            && x.state() == g.state()
            && x.request().equals(g.request())) {
          l.remove(i);
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
    bySubscriber.computeIfAbsent(subscriber(g), a -> new ArrayList<>()).add(g);
  }

  private List<Gate> ofSubscriber(Gate g) {
    return bySubscriber.getOrDefault(subscriber(g), List.of());
  }

  private static InetAddress subscriber(Gate g) {
    return g.request().subscriber().address();
  }
}
