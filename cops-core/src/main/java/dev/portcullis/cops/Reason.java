package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/** Reason (C-Num 5, C-Type 1): why a request state was deleted. */
public record Reason(int code, int subCode) implements CopsObject {
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

  @Override
  public int contentLength() {
    return 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeShort(code).writeShort(subCode);
  }
}
