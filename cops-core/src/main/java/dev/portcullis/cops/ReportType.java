package dev.portcullis.cops;

/** Report-Types of the Report-Type object (RFC 2748 section 2.2.12). */
public enum ReportType implements WireCode {
  SUCCESS(1, "Success: decision was successful at the PEP"),
  FAILURE(2, "Failure: decision could not be completed by the PEP"),
  ACCOUNTING(3, "Accounting: accounting update for an installed state");

  private static final WireCodes<ReportType> CODES = WireCodes.of(ReportType.class);

  private final int code;
  private final String description;

  ReportType(int code, String description) {
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
  public static ReportType valueOf(int code) {
    return CODES.valueOf(code);
  }
}
