package dev.portcullis.cops;

/** Reason-Codes of the Reason object (RFC 2748 section 2.2.5). */
public enum ReasonCode {
  UNSPECIFIED(1, "Unspecified"),
  MANAGEMENT(2, "Management"),
  PREEMPTED(3, "Preempted (Another request state takes precedence)"),
  TEAR(4, "Tear (Used to communicate a signaled state removal)"),
  TIMEOUT(5, "Timeout (Local state has timed-out)"),
  ROUTE_CHANGE(6, "Route Change (Change invalidates request state)"),
  INSUFFICIENT_RESOURCES(7, "Insufficient Resources (No local resource available)"),
  PDP_DIRECTIVE(8, "PDP's Directive (PDP decision caused the delete)"),
  UNSUPPORTED_DECISION(9, "Unsupported decision (PDP decision not supported)"),
  SYNCHRONIZE_HANDLE_UNKNOWN(10, "Synchronize Handle Unknown"),
  TRANSIENT_HANDLE(11, "Transient Handle (stateless event)"),
  MALFORMED_DECISION(12, "Malformed Decision (could not recover)"),
  UNKNOWN_OBJECT_FROM_PDP(13, "Unknown COPS Object from PDP");

  private static final ReasonCode[] BY_CODE = new ReasonCode[14];

  static {
    for (ReasonCode r : values()) {
      BY_CODE[r.code] = r;
    }
  }

  private final int code;
  private final String description;

  ReasonCode(int code, String description) {
    this.code = code;
    this.description = description;
  }

  public int code() {
    return code;
  }

  public String description() {
    return description;
  }

  /** The reason for {@code code}, or null if RFC 2748 defines none. */
  public static ReasonCode fromCode(int code) {
    return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
