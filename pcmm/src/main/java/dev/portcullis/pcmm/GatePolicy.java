package dev.portcullis.pcmm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether a gate may be set: before every Gate-Set, and again for every gate when the
 * policy changes ({@link PolicyServer#reevaluate()}), where a gate it no longer allows is deleted.
 */
public interface GatePolicy {
  /**
   * The verdict on {@code request}, given the subscriber's other gates on all CMTSs. Called on the
   * thread that asked for the gate (the gate API's event loop, an application's thread) or, when a
   * decision is made again, on the server's event loop: it must return promptly. A policy that
   * waits for another system implements {@link #decideAsync} instead.
   */
  Verdict decide(GateRequest request, List<Gate> subscribersGates);

  /**
   * Starts deciding {@code request}; the server continues with the verdict when the stage completes
   * (on whatever thread completes it) and never waits for it on a thread of its own. Defaults to
   * {@link #decide}, already completed. A stage that fails denies, as a {@link #decide} that
   * throws.
   */
  default CompletionStage<Verdict> decideAsync(GateRequest request, List<Gate> subscribersGates) {
    return CompletableFuture.completedFuture(decide(request, subscribersGates));
  }

  /**
   * A policy that allows what every one of {@code policies} allows (the first denial decides), e.g.
   * a rules engine for what may have a gate and {@link SubscriberLimits} for how many.
   */
  static GatePolicy all(GatePolicy... policies) {
    List<GatePolicy> l = List.of(policies);
    return new GatePolicy() {
      @Override
      public Verdict decide(GateRequest request, List<Gate> gates) {
        List<Verdict> allowed = new ArrayList<>(l.size());
        for (GatePolicy p : l) {
          Verdict v = p.decide(request, gates);
          if (!v.allowed()) {
            return v;
          }
          allowed.add(v);
        }
        return allowedBy(allowed);
      }

      @Override
      public CompletionStage<Verdict> decideAsync(GateRequest request, List<Gate> gates) {
        return Stages.inTurn(
            l, p -> p.decideAsync(request, gates), v -> !v.allowed(), GatePolicy::allowedBy);
      }

      @Override
      public String toString() {
        return l.toString();
      }
    };
  }

  /** Allowed by every one of {@link #all}'s policies: their reasons, in order. */
  private static Verdict allowedBy(List<Verdict> allowed) {
    return Verdict.allow(
        String.join("; ", allowed.stream().map(v -> String.valueOf(v.reason())).toList()));
  }

  /** Allowed or not, and why (for logs, the audit and the refused caller). */
  record Verdict(boolean allowed, String reason) {
    public static Verdict allow(String reason) {
      return new Verdict(true, reason);
    }

    public static Verdict deny(String reason) {
      return new Verdict(false, reason);
    }
  }
}
