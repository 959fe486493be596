package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

/** Error (C-Num 8, C-Type 1). */
public record ErrorObject(int code, int subCode) implements CodeAndSubCode {
  public ErrorObject {
    u16("Error-Code", code);
    u16("Error Sub-code", subCode);
  }

  public ErrorObject(ErrorCode code, int subCode) {
    this(code.code(), subCode);
  }

  public ErrorObject(ErrorCode code) {
    this(code.code(), 0);
  }

  /** The RFC 2748 error, or null for a code it does not define. */
  public ErrorCode errorCode() {
    return ErrorCode.isDefined(code) ? ErrorCode.valueOf(code) : null;
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.ERROR;
  }
}
