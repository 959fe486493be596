package dev.portcullis.cops;

/** A code a {@link WireCode} enum does not define, asked for by {@code valueOf(int)}. */
public final class UnknownWireCodeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String type;
  private final int code;

  UnknownWireCodeException(String type, int code) {
    super(type + " " + code + " is not defined");
    this.type = type;
    this.code = code;
  }

  /** The enum's simple name, {@code ErrorCode} say. */
  public String type() {
    return type;
  }

  public int code() {
    return code;
  }
}
