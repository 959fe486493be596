package dev.portcullis.pcmm;

/** What happens to gates, for the audit, metrics and applications. Called off the event loops. */
public interface GateListener {
  /** A CMTS acknowledged a Gate-Set: the gate exists. */
  default void set(Gate gate, String reason) {}

  /** A CMTS acknowledged a Gate-Delete, or answered it with Unknown GateID. */
  default void deleted(Gate gate, String reason) {}

  /** A CMTS no longer has a gate this server held (seen after a reconnect). */
  default void lost(Gate gate, String reason) {}

  /** A CMTS reported a new state for a gate (Gate-Report-State or a Gate-Info answer). */
  default void stateChanged(Gate gate) {}
}
