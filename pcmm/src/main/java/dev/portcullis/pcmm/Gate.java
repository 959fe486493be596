package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.PcmmObject;

/**
 * A gate a CMTS acknowledged: which CMTS, the Gate ID it gave, what was asked for, and the state it
 * last reported (Gate State values; {@link PcmmObject.GateState#AUTHORIZED} after a Gate-Set-Ack).
 */
public record Gate(String cmts, int gateId, GateRequest request, int state) {
  /**
   * The state of a Gate-Set whose answer was lost (Gate ID 0): the gate may exist on the CMTS. Not
   * a Gate State value (those are 1 to 4).
   */
  public static final int IN_DOUBT = -1;

  /** This gate in {@code state}. */
  Gate withState(int state) {
    return new Gate(cmts, gateId, request, state);
  }

  /** The key a policy server files it under: the CMTS's name and the Gate ID, unique. */
  public String key() {
    return key(cmts, gateId);
  }

  static String key(String cmts, int gateId) {
    return cmts + "/" + Integer.toHexString(gateId);
  }

  @Override
  public String toString() {
    return "gate 0x"
        + Integer.toHexString(gateId)
        + " on "
        + cmts
        + " for "
        + request.subscriber().address().getHostAddress();
  }
}
