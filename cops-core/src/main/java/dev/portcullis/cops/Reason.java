package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

/** Reason (C-Num 5, C-Type 1): why a request state was deleted. */
public record Reason(int code, int subCode) implements CodeAndSubCode {
  public Reason {
    u16("Reason-Code", code);
    u16("Reason Sub-code", subCode);
  }

  public Reason(ReasonCode code) {
    this(code.code(), 0);
  }

  /** The RFC 2748 reason, or null for a code it does not define. */
  public ReasonCode reasonCode() {
    return ReasonCode.isDefined(code) ? ReasonCode.valueOf(code) : null;
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.REASON;
  }
}
