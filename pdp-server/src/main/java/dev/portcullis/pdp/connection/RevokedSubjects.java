package dev.portcullis.pdp.connection;

import dev.portcullis.pdp.policy.PolicyDecision;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The subjects an operator has revoked on this PDP (docs/operate.md, "Revoking a subject"): while a
 * subject is here, every decision for it is a Remove that says so, whatever the policy says — its
 * new requests (the engine is not asked, so nothing it keeps, such as an MLS session, is opened),
 * an asynchronous engine's answer that arrives after the revocation, and the installed decisions
 * decided again, which is how the revocation reaches what PEPs hold. Until it is restored.
 *
 * <p>Read on every decision from the connections' event loops: one volatile read while nobody is
 * revoked, a hash look-up while someone is. Written by the operator's actions, copy on write, so a
 * reader never waits.
 */
public final class RevokedSubjects {
  /** One revocation: who, by whom, why, when. */
  public record Revocation(String subject, String by, String reason, Instant at) {
    public Revocation {
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(by, "by");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(at, "at");
    }

    /** The decision every request of the subject gets: a Remove, its rule {@code revoked}. */
    public PolicyDecision decision() {
      return PolicyDecision.deny(RULE, "subject " + subject + " revoked by " + by + ": " + reason);
    }
  }

  /** The rule id a revocation's decisions carry (audit, the PEP's reason). */
  public static final String RULE = "revoked";

  /** None ever revoked: for contexts with no operator (tests). */
  public static final RevokedSubjects NONE = new RevokedSubjects();

  private final AtomicReference<Map<String, Revocation>> revoked = new AtomicReference<>(Map.of());

  /** {@code subject}'s revocation, or null (the decision path's question). */
  public Revocation of(String subject) {
    Map<String, Revocation> m = revoked.get();
    return m.isEmpty() || subject == null ? null : m.get(subject);
  }

  /** Revokes {@code r.subject()}; false if it was revoked already (the first stays). */
  public boolean revoke(Revocation r) {
    if (this == NONE) {
      throw new IllegalStateException("no operator revokes here");
    }
    boolean[] added = {false};
    revoked.updateAndGet(
        m -> {
          if (m.containsKey(r.subject())) {
            added[0] = false;
            return m;
          }
          Map<String, Revocation> next = new HashMap<>(m);
          next.put(r.subject(), r);
          added[0] = true;
          return Map.copyOf(next);
        });
    return added[0];
  }

  /** Ends {@code subject}'s revocation; its revocation, or null if it was not revoked. */
  public Revocation restore(String subject) {
    Revocation[] was = {null};
    revoked.updateAndGet(
        m -> {
          was[0] = m.get(subject);
          if (was[0] == null) {
            return m;
          }
          Map<String, Revocation> next = new HashMap<>(m);
          next.remove(subject);
          return Map.copyOf(next);
        });
    return was[0];
  }

  /** Every revocation in force, by subject. */
  public List<Revocation> all() {
    return revoked.get().values().stream()
        .sorted(java.util.Comparator.comparing(Revocation::subject))
        .toList();
  }
}
