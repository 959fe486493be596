package dev.portcullis.cops;

/** Command-Codes of the Decision Flags object (RFC 2748 section 2.2.6, C-Type 1). */
public enum DecisionCommand {
  NULL_DECISION(0, "NULL Decision (No configuration data available)"),
  INSTALL(1, "Install (Admit request/Install configuration)"),
  REMOVE(2, "Remove (Remove request/Remove configuration)");

  /** Decision Flags bit: trigger an error message if set. */
  public static final int FLAG_TRIGGER_ERROR = 0x01;

  private final int code;
  private final String description;

  DecisionCommand(int code, String description) {
    this.code = code;
    this.description = description;
  }

  public int code() {
    return code;
  }

  public String description() {
    return description;
  }

  /** The command for {@code code}, or null if RFC 2748 defines none. */
  public static DecisionCommand fromCode(int code) {
    for (DecisionCommand d : values()) {
      if (d.code == code) {
        return d;
      }
    }
    return null;
  }
}
