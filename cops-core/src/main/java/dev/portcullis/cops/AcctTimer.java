package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/** Accounting Timer (C-Num 15, C-Type 1): seconds between accounting reports; 0 means none. */
public record AcctTimer(int seconds) implements CopsObject {
  public AcctTimer {
    u16("ACCT Timer Value", seconds);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.ACCT_TIMER;
  }

  @Override
  public int contentLength() {
    return 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeShort(0).writeShort(seconds);
  }
}
