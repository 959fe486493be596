package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/**
 * Context (C-Num 2, C-Type 1): the R-Type flags say what is asked (admission control, resource
 * allocation, outgoing message, configuration), the M-Type is client-specific.
 */
public record Context(int rType, int mType) implements CopsObject {
  /** R-Type: Incoming-Message / Admission Control request. */
  public static final int R_INCOMING = 0x01;

  /** R-Type: Resource-Allocation request. */
  public static final int R_RESOURCE_ALLOCATION = 0x02;

  /** R-Type: Outgoing-Message request. */
  public static final int R_OUTGOING = 0x04;

  /** R-Type: Configuration request. */
  public static final int R_CONFIGURATION = 0x08;

  public Context {
    u16("R-Type", rType);
    u16("M-Type", mType);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.CONTEXT;
  }

  @Override
  public int contentLength() {
    return 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeShort(rType).writeShort(mType);
  }
}
