package dev.portcullis.cops.access;

/** What an access request asks for. */
public enum AccessOperation {
  /** Open a connection to a service (one request per new connection, as MYSEA's proxy did). */
  ACCESS(1),
  /** Start a session at a level within the subject's clearance. */
  LOGIN(2),
  /** Move the session to another level ({@code requestedLevel}). */
  CHANGE_LEVEL(3),
  /** End the session. */
  LOGOUT(4);

  private final int code;

  AccessOperation(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static AccessOperation fromCode(int code) {
    for (AccessOperation o : values()) {
      if (o.code == code) {
        return o;
      }
    }
    return null;
  }
}
