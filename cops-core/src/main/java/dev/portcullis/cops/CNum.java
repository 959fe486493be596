package dev.portcullis.cops;

/**
 * Object class numbers (RFC 2748 section 2.2); the C-Types each defines are in {@link ObjectType}
 * ({@link #INTEGRITY} C-Type 2 is RFC 4261's Integrity-TLS).
 */
public enum CNum implements WireCode {
  HANDLE(1, "Handle"),
  CONTEXT(2, "Context"),
  IN_INTERFACE(3, "In-Interface"),
  OUT_INTERFACE(4, "Out-Interface"),
  REASON(5, "Reason"),
  DECISION(6, "Decision"),
  LPDP_DECISION(7, "LPDP Decision"),
  ERROR(8, "Error"),
  CLIENT_SI(9, "ClientSI"),
  KA_TIMER(10, "Keep-Alive Timer"),
  PEP_ID(11, "PEPID"),
  REPORT_TYPE(12, "Report-Type"),
  PDP_REDIRECT_ADDRESS(13, "PDP Redirect Address"),
  LAST_PDP_ADDRESS(14, "Last PDP Address"),
  ACCT_TIMER(15, "Accounting Timer"),
  INTEGRITY(16, "Integrity");

  private static final WireCodes<CNum> CODES = WireCodes.of(CNum.class);

  private final int code;
  private final String description;

  CNum(int code, String description) {
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

  /** True if RFC 2748 (or RFC 4261) defines {@code cType} for this class ({@link ObjectType}). */
  public boolean definesCType(int cType) {
    return ObjectType.of(this, cType) != null;
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
