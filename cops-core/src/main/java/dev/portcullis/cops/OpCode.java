package dev.portcullis.cops;

/** COPS operation codes (RFC 2748 section 2.1). */
public enum OpCode implements WireCode {
  REQ(1, "Request"),
  DEC(2, "Decision"),
  RPT(3, "Report State"),
  DRQ(4, "Delete Request State"),
  SSQ(5, "Synchronize State Request"),
  OPN(6, "Client-Open"),
  CAT(7, "Client-Accept"),
  CC(8, "Client-Close"),
  KA(9, "Keep-Alive"),
  SSC(10, "Synchronize Complete");

  private static final WireCodes<OpCode> CODES = WireCodes.of(OpCode.class);

  private final int code;
  private final String description;

  OpCode(int code, String description) {
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
  public static OpCode valueOf(int code) {
    return CODES.valueOf(code);
  }
}
