package dev.portcullis.cops;

/** Command-Codes of the Decision Flags object (RFC 2748 section 2.2.6, C-Type 1). */
public enum DecisionCommand implements WireCode {
  NULL_DECISION(0, "NULL Decision (No configuration data available)"),
  INSTALL(1, "Install (Admit request/Install configuration)"),
  REMOVE(2, "Remove (Remove request/Remove configuration)");

  private static final WireCodes<DecisionCommand> CODES = WireCodes.of(DecisionCommand.class);

  /** Decision Flags bit: trigger an error message if set. */
  public static final int FLAG_TRIGGER_ERROR = 0x01;

  private final int code;
  private final String description;

  DecisionCommand(int code, String description) {
    this.code = code;
    this.description = description;
  }

  @Override
  public int code() {
    return code;
  }

  @Override
  public String description() {
    return description;
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
  public static DecisionCommand valueOf(int code) {
    return CODES.valueOf(code);
  }
}
