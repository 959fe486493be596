package dev.portcullis.cops;

/** The data-carrying Decision C-Types of RFC 2748 section 2.2.6. */
public enum DecisionDataKind {
  STATELESS(2, "Stateless Data"),
  REPLACEMENT(3, "Replacement Data"),
  CLIENT_SPECIFIC(4, "Client Specific Decision Data"),
  NAMED(5, "Named Decision Data");

  private final int cType;
  private final String description;

  DecisionDataKind(int cType, String description) {
    this.cType = cType;
    this.description = description;
  }

  public int cType() {
    return cType;
  }

  public String description() {
    return description;
  }

  /** The kind for C-Type 2 to 5, else null. */
  public static DecisionDataKind fromCType(int cType) {
    return cType >= 2 && cType <= 5 ? values()[cType - 2] : null;
  }
}
