package dev.portcullis.pdp.policy;

/**
 * Decides access requests. Called on the PEP connection's event loop, so {@link #decide} must be
 * fast and must not block; engines that keep state (sessions) make it thread-safe, since several
 * connections decide at once.
 */
public interface PolicyEngine {

  /** Decides a new or updated request; may change engine state (a login opens a session). */
  PolicyDecision decide(PolicyRequest request);

  /**
   * Decides an installed request again after a policy reload, without changing state: the answer
   * decides whether the PEP gets an unsolicited decision. Defaults to {@link #decide}.
   */
  default PolicyDecision reevaluate(PolicyRequest request) {
    return decide(request);
  }

  /** The PEP deleted the request state (DRQ, Client-Close or a lost connection). */
  default void released(PolicyRequest request) {}

  /** One line for logs: what this engine holds, e.g. "12 rules". */
  String describe();
}
