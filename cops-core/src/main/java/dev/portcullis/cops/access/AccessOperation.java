package dev.portcullis.cops.access;

import dev.portcullis.cops.UnknownWireCodeException;
import dev.portcullis.cops.WireCode;
import dev.portcullis.cops.WireCodes;

/** What an access request asks for. */
public enum AccessOperation implements WireCode {
  /** Open a connection to a service (one request per new connection, as MYSEA's proxy did). */
  ACCESS(1, "Access"),
  /** Start a session at a level within the subject's clearance. */
  LOGIN(2, "Login"),
  /** Move the session to another level ({@code requestedLevel}). */
  CHANGE_LEVEL(3, "Change level"),
  /** End the session. */
  LOGOUT(4, "Logout");

  private static final WireCodes<AccessOperation> CODES = WireCodes.of(AccessOperation.class);

  private final int code;
  private final String description;

  AccessOperation(int code, String description) {
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
  public static AccessOperation valueOf(int code) {
    return CODES.valueOf(code);
  }
}
