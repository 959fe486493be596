package dev.portcullis.pcmm;

import java.util.List;

/**
 * Decides whether a gate may be set: before every Gate-Set, and again for every gate when the
 * policy changes ({@link PolicyServer#reevaluate()}), where a gate it no longer allows is deleted.
 */
public interface GatePolicy {
  /** The verdict on {@code request}, given the subscriber's other gates on all CMTSs. */
  Verdict decide(GateRequest request, List<Gate> subscribersGates);

  /**
   * A policy that allows what every one of {@code policies} allows (the first denial decides), e.g.
   * a rules engine for what may have a gate and {@link SubscriberLimits} for how many.
   */
  static GatePolicy all(GatePolicy... policies) {
    List<GatePolicy> l = List.of(policies);
    return (request, gates) -> {
      StringBuilder why = new StringBuilder();
      for (GatePolicy p : l) {
        Verdict v = p.decide(request, gates);
        if (!v.allowed()) {
          return v;
        }
        why.append(why.length() == 0 ? "" : "; ").append(v.reason());
      }
      return Verdict.allow(why.toString());
    };
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
