package dev.portcullis.cops.access;

/** How the subject will use the object it accesses: what Bell-LaPadula and Biba decide on. */
public enum AccessMode {
  READ(1),
  WRITE(2),
  READ_WRITE(3);

  private final int code;

  AccessMode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static AccessMode fromCode(int code) {
    for (AccessMode m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    return null;
  }
}
