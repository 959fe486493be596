package dev.portcullis.pcmm;

/** What happens to gates, for the audit, metrics and applications. Called off the event loops. */
public interface GateListener {
  /**
   * The policy allowed a Gate-Set, which is about to be sent: called before the CMTS can act on it,
   * so that a record of the decision precedes the gate it makes.
   */
  default void allowed(String cmts, GateRequest request, String reason) {}

  /** A Gate-Set not made: denied by the policy, refused by the CMTS, or not answered. */
  default void refused(String cmts, GateRequest request, String reason) {}

  /** A CMTS acknowledged a Gate-Set: the gate exists. */
  default void set(Gate gate, String reason) {}

  /** A CMTS acknowledged a change of a gate: {@code was} is now {@code now} (same Gate ID). */
  default void modified(Gate was, Gate now, String reason) {}

  /** A CMTS acknowledged a Gate-Delete, or answered it with Unknown GateID. */
  default void deleted(Gate gate, String reason) {}

  /** A CMTS no longer has a gate this server held (seen after a reconnect). */
  default void lost(Gate gate, String reason) {}

  /** A CMTS reported a new state for a gate (Gate-Report-State or a Gate-Info answer). */
  default void stateChanged(Gate gate) {}
}
