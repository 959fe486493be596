package dev.portcullis.cops;

/** COPS operation codes (RFC 2748 section 2.1). */
public enum OpCode {
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

  private static final OpCode[] BY_CODE = new OpCode[11];

  static {
    for (OpCode o : values()) {
      BY_CODE[o.code] = o;
    }
  }

  private final int code;
  private final String description;

  OpCode(int code, String description) {
    this.code = code;
    this.description = description;
  }

  public int code() {
    return code;
  }

  public String description() {
    return description;
  }

  /** The op code for {@code code}, or null if RFC 2748 defines none. */
  public static OpCode fromCode(int code) {
    return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
