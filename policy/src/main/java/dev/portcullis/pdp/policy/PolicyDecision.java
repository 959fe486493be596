package dev.portcullis.pdp.policy;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.access.AccessDecision;
import java.util.Arrays;
import java.util.Objects;

/**
 * An engine's answer: install (grant) or remove (deny), and the decision data returned with it. A
 * value: equal when both parts are equal. Engines that answer many requests with the same decision
 * (a rule's outcome) return the same instance, whose encoded decision data is then computed once.
 */
public final class PolicyDecision {
  private final boolean install;
  private final AccessDecision data;
  private volatile DecisionData encoded;
  // this decision as a DEC's in each context met so far (copy on write; a handful at most)
  private volatile DecisionSet[] sets = new DecisionSet[0];

  /** Contexts a decision keeps its DEC decision for; others get a new one each time. */
  static final int MAX_CONTEXTS = 8;

  /**
   * @param data why and on what terms; never null (use an empty {@link AccessDecision})
   */
  public PolicyDecision(boolean install, AccessDecision data) {
    this.install = install;
    this.data = Objects.requireNonNull(data, "data");
  }

  public static PolicyDecision grant(String ruleId, String reason) {
    return new PolicyDecision(true, new AccessDecision(ruleId, reason, null, null, null, null));
  }

  public static PolicyDecision deny(String ruleId, String reason) {
    return new PolicyDecision(false, new AccessDecision(ruleId, reason, null, null, null, null));
  }

  public boolean install() {
    return install;
  }

  public AccessDecision data() {
    return data;
  }

  /** The Client Specific Decision Data object carrying {@link #data()}, encoded once. */
  public DecisionData decisionData() {
    DecisionData d = encoded;
    if (d == null) {
      d = data.toDecisionData();
      encoded = d;
    }
    return d;
  }

  /**
   * This decision as a DEC's decision in {@code context}: the same instance for the same context
   * (requests come in a handful of contexts), so that each connection's encoder writes its objects
   * from the bytes it kept for it ({@code DecisionTails}).
   */
  public DecisionSet decisionSet(Context context) {
    DecisionSet[] known = sets;
    for (DecisionSet s : known) {
      if (s.context().equals(context)) {
        return s;
      }
    }
    DecisionSet s =
        new DecisionSet(
            context,
            new DecisionFlags(false, install ? DecisionCommand.INSTALL : DecisionCommand.REMOVE),
            null,
            null,
            decisionData(),
            null);
    if (known.length < MAX_CONTEXTS) {
      DecisionSet[] more = Arrays.copyOf(known, known.length + 1);
      more[known.length] = s;
      sets = more; // two loops adding at once: one's is lost, and made again next time
    }
    return s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PolicyDecision
        && ((PolicyDecision) o).install == install
        && ((PolicyDecision) o).data.equals(data);
  }

  @Override
  public int hashCode() {
    return Boolean.hashCode(install) * 31 + data.hashCode();
  }

  @Override
  public String toString() {
    return "PolicyDecision[" + (install ? "install" : "remove") + ", " + data + "]";
  }
}
