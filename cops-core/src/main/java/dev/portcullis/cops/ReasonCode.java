package dev.portcullis.cops;

/** Reason-Codes of the Reason object (RFC 2748 section 2.2.5). */
public enum ReasonCode implements WireCode {
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

  private static final WireCodes<ReasonCode> CODES = WireCodes.of(ReasonCode.class);

  private final int code;
  private final String description;

  ReasonCode(int code, String description) {
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
  public static ReasonCode valueOf(int code) {
    return CODES.valueOf(code);
  }
}
