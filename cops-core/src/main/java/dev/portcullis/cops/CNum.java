package dev.portcullis.cops;

/**
 * Object class numbers (RFC 2748 section 2.2) with the C-Types each defines; {@link #INTEGRITY}
 * C-Type 2 is RFC 4261's Integrity-TLS.
 */
public enum CNum implements WireCode {
  HANDLE(1, "Handle", 1),
  CONTEXT(2, "Context", 1),
  IN_INTERFACE(3, "In-Interface", 2),
  OUT_INTERFACE(4, "Out-Interface", 2),
  REASON(5, "Reason", 1),
  DECISION(6, "Decision", 5),
  LPDP_DECISION(7, "LPDP Decision", 5),
  ERROR(8, "Error", 1),
  CLIENT_SI(9, "ClientSI", 2),
  KA_TIMER(10, "Keep-Alive Timer", 1),
  PEP_ID(11, "PEPID", 1),
  REPORT_TYPE(12, "Report-Type", 1),
  PDP_REDIRECT_ADDRESS(13, "PDP Redirect Address", 2),
  LAST_PDP_ADDRESS(14, "Last PDP Address", 2),
  ACCT_TIMER(15, "Accounting Timer", 1),
  INTEGRITY(16, "Integrity", 2);

  private static final WireCodes<CNum> CODES = WireCodes.of(CNum.class);

  private final int code;
  private final String description;
  private final int maxCType;

  CNum(int code, String description, int maxCType) {
    this.code = code;
    this.description = description;
    this.maxCType = maxCType;
  }

  @Override
  public int code() {
    return code;
  }

  @Override
  public String description() {
    return description;
  }

  /** True if RFC 2748 (or RFC 4261) defines {@code cType} for this class (1 to max). */
  public boolean definesCType(int cType) {
    return cType >= 1 && cType <= maxCType;
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
  public static CNum valueOf(int code) {
    return CODES.valueOf(code);
  }
}
