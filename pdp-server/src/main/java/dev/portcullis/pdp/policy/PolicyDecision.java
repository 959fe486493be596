package dev.portcullis.pdp.policy;

import dev.portcullis.cops.access.AccessDecision;
import java.util.Objects;

/**
 * An engine's answer: install (grant) or remove (deny), and the decision data returned with it.
 *
 * @param data why and on what terms; never null (use an empty {@link AccessDecision})
 */
public record PolicyDecision(boolean install, AccessDecision data) {
  public PolicyDecision {
    Objects.requireNonNull(data, "data");
  }

  public static PolicyDecision grant(String ruleId, String reason) {
    return new PolicyDecision(true, new AccessDecision(ruleId, reason, null, null, null, null));
  }

  public static PolicyDecision deny(String ruleId, String reason) {
    return new PolicyDecision(false, new AccessDecision(ruleId, reason, null, null, null, null));
  }
}
