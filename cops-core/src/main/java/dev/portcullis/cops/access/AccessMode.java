package dev.portcullis.cops.access;

import dev.portcullis.cops.UnknownWireCodeException;
import dev.portcullis.cops.WireCode;
import dev.portcullis.cops.WireCodes;

/** How the subject will use the object it accesses: what Bell-LaPadula and Biba decide on. */
public enum AccessMode implements WireCode {
  READ(1, "read"),
  WRITE(2, "write"),
  READ_WRITE(3, "read and write");

  private static final WireCodes<AccessMode> CODES = WireCodes.of(AccessMode.class);

  private final int code;
  private final String description;

  AccessMode(int code, String description) {
    this.code = code;
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public int code() {
    return code;
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
  public static AccessMode valueOf(int code) {
    return CODES.valueOf(code);
  }
}
