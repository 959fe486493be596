package dev.portcullis.cops;

/** Error-Codes of the Error object (RFC 2748 section 2.2.8). */
public enum ErrorCode implements WireCode {
  BAD_HANDLE(1, "Bad handle"),
  INVALID_HANDLE_REFERENCE(2, "Invalid handle reference"),
  BAD_MESSAGE_FORMAT(3, "Bad message format (Malformed Message)"),
  UNABLE_TO_PROCESS(4, "Unable to process (server gives up on query)"),
  MANDATORY_CLIENT_SPECIFIC_INFO_MISSING(5, "Mandatory client-specific info missing"),
  UNSUPPORTED_CLIENT_TYPE(6, "Unsupported client-type"),
  MANDATORY_OBJECT_MISSING(7, "Mandatory COPS object missing"),
  CLIENT_FAILURE(8, "Client Failure"),
  COMMUNICATION_FAILURE(9, "Communication Failure"),
  UNSPECIFIED(10, "Unspecified"),
  SHUTTING_DOWN(11, "Shutting down"),
  REDIRECT_TO_PREFERRED_SERVER(12, "Redirect to Preferred Server"),
  UNKNOWN_OBJECT(13, "Unknown COPS Object"),
  AUTHENTICATION_FAILURE(14, "Authentication Failure"),
  AUTHENTICATION_REQUIRED(15, "Authentication Required");

  private static final WireCodes<ErrorCode> CODES = WireCodes.of(ErrorCode.class);

  private final int code;
  private final String description;

  ErrorCode(int code, String description) {
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
  public static ErrorCode valueOf(int code) {
    return CODES.valueOf(code);
  }

  /**
   * The sub-code RFC 2748 prescribes for {@link #UNKNOWN_OBJECT} and RFC 4261 uses with {@link
   * #AUTHENTICATION_REQUIRED}: C-Num in the high octet, C-Type in the low one.
   */
  public static int objectSubCode(int cNum, int cType) {
    return (cNum & 0xFF) << 8 | (cType & 0xFF);
  }

  /**
   * RFC 4261 section 4.2: error 15 with this sub-code means "TLS required" (C-Num 16, C-Type 2).
   */
  public static final int SUB_CODE_TLS_REQUIRED = 0x1002;

  /**
   * Error 15 with this sub-code: the HMAC Integrity object (C-Num 16, C-Type 1) is required. RFC
   * 2748 gives error 15 no sub-code; Portcullis names the missing object the way RFC 4261 does.
   */
  public static final int SUB_CODE_INTEGRITY_REQUIRED = 0x1001;
}
