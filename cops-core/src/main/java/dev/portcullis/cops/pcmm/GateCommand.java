package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.UnknownWireCodeException;
import dev.portcullis.cops.WireCode;
import dev.portcullis.cops.WireCodes;

/**
 * Gate Command Types of the Transaction ID object. Codes 1 to 3 are PacketCable DQoS's Gate-Alloc
 * messages, reserved in PCMM; 13 and 14 (DQoS's Gate-Open and Gate-Close) are not PCMM messages.
 * PDP-Config, the synchronisation messages and Msg-Receipt (17 to 23) came with later issues than
 * I02 and are decoded so that a CMTS speaking one is understood.
 */
public enum GateCommand implements WireCode {
  GATE_SET(4, "Gate-Set", true),
  GATE_SET_ACK(5, "Gate-Set-Ack", false),
  GATE_SET_ERR(6, "Gate-Set-Err", false),
  GATE_INFO(7, "Gate-Info", true),
  GATE_INFO_ACK(8, "Gate-Info-Ack", false),
  GATE_INFO_ERR(9, "Gate-Info-Err", false),
  GATE_DELETE(10, "Gate-Delete", true),
  GATE_DELETE_ACK(11, "Gate-Delete-Ack", false),
  GATE_DELETE_ERR(12, "Gate-Delete-Err", false),
  GATE_REPORT_STATE(15, "Gate-Report-State", false),
  INVALID_GATE_CMD_ERR(16, "Invalid-Gate-Cmd-Err", false),
  PDP_CONFIG(17, "PDP-Config", true),
  PDP_CONFIG_ACK(18, "PDP-Config-Ack", false),
  PDP_CONFIG_ERR(19, "PDP-Config-Err", false),
  SYNCH_REQUEST(20, "Synch-Request", true),
  SYNCH_REPORT(21, "Synch-Report", false),
  SYNCH_COMPLETE(22, "Synch-Complete", false),
  MSG_RECEIPT(23, "Msg-Receipt", false);

  private static final WireCodes<GateCommand> CODES = WireCodes.of(GateCommand.class);

  private final int code;
  private final String description;
  private final boolean fromPolicyServer;

  GateCommand(int code, String description, boolean fromPolicyServer) {
    this.code = code;
    this.description = description;
    this.fromPolicyServer = fromPolicyServer;
  }

  @Override
  public int code() {
    return code;
  }

  @Override
  public String description() {
    return description;
  }

  /** True if the Policy Server sends it (in a COPS DEC); false if the CMTS does (in an RPT). */
  public boolean fromPolicyServer() {
    return fromPolicyServer;
  }

  /**
   * True for the three -Err answers and Invalid-Gate-Cmd-Err (carried with Report-Type Failure).
   */
  public boolean isError() {
    return this == GATE_SET_ERR
        || this == GATE_INFO_ERR
        || this == GATE_DELETE_ERR
        || this == INVALID_GATE_CMD_ERR
        || this == PDP_CONFIG_ERR;
  }

  /** True if {@code code} is one this type defines. */
  public static boolean isDefined(int code) {
    return CODES.isDefined(code);
  }

  /**
   * The constant for {@code code}.
   *
   * @throws UnknownWireCodeException if this type defines none
   */
  public static GateCommand valueOf(int code) {
    return CODES.valueOf(code);
  }
}
