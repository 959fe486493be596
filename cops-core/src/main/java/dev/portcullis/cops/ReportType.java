package dev.portcullis.cops;

/** Report-Types of the Report-Type object (RFC 2748 section 2.2.12). */
public enum ReportType {
  SUCCESS(1, "Success: decision was successful at the PEP"),
  FAILURE(2, "Failure: decision could not be completed by the PEP"),
  ACCOUNTING(3, "Accounting: accounting update for an installed state");

  private final int code;
  private final String description;

  ReportType(int code, String description) {
    this.code = code;
    this.description = description;
  }

  public int code() {
    return code;
  }

  public String description() {
    return description;
  }

  /** The report type for {@code code}, or null if RFC 2748 defines none. */
  public static ReportType fromCode(int code) {
    for (ReportType r : values()) {
      if (r.code == code) {
        return r;
      }
    }
    return null;
  }
}
