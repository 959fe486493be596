package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/** Keep-Alive Timer (C-Num 10, C-Type 1): seconds; 0 means no keep-alive. */
public record KaTimer(int seconds) implements CopsObject {
  public KaTimer {
    u16("KA Timer Value", seconds);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.KA_TIMER;
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
