package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.UnknownWireCodeException;
import dev.portcullis.cops.WireCode;
import dev.portcullis.cops.WireCodes;

/**
 * Error-Codes of the PacketCable Error object (S-Num 14). For 6 (Missing Required Object) and 7
 * (Invalid Object) the Error-Subcode names the object: its S-Num in the high byte, its S-Type in
 * the low byte ({@link #objectSubcode}).
 */
public enum PcmmErrorCode implements WireCode {
  INSUFFICIENT_RESOURCES(1, "Insufficient Resources"),
  UNKNOWN_GATE_ID(2, "Unknown GateID"),
  MISSING_REQUIRED_OBJECT(6, "Missing Required Object"),
  INVALID_OBJECT(7, "Invalid Object"),
  VOLUME_LIMIT_EXCEEDED(8, "Volume-Based Usage Limit Exceeded"),
  TIME_LIMIT_EXCEEDED(9, "Time-Based Usage Limit Exceeded"),
  SESSION_CLASS_LIMIT_EXCEEDED(10, "Session Class Limit Exceeded"),
  UNDEFINED_SERVICE_CLASS_NAME(11, "Undefined Service Class Name"),
  INCOMPATIBLE_ENVELOPE(12, "Incompatible Envelope"),
  INVALID_SUBSCRIBER_ID(13, "Invalid SubscriberID"),
  UNAUTHORIZED_AMID(14, "Unauthorized AMID"),
  CLASSIFIERS_NOT_SUPPORTED(15, "Number of Classifiers Not Supported"),
  POLICY_EXCEPTION(16, "Policy Exception"),
  INVALID_FIELD_VALUE(17, "Invalid Field Value in Object"),
  TRANSPORT_ERROR(18, "Transport Error"),
  UNKNOWN_GATE_COMMAND(19, "Unknown Gate Command"),
  OTHER(127, "Other, Unspecified Error");

  private static final WireCodes<PcmmErrorCode> CODES = WireCodes.of(PcmmErrorCode.class);

  private final int code;
  private final String description;

  PcmmErrorCode(int code, String description) {
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

  /** The Error-Subcode naming an object: S-Num in the high byte, S-Type in the low byte. */
  public static int objectSubcode(int sNum, int sType) {
    return (sNum & 0xFF) << 8 | (sType & 0xFF);
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
  public static PcmmErrorCode valueOf(int code) {
    return CODES.valueOf(code);
  }
}
