package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;

/**
 * The layout of RFC 2748's timer objects, Keep-Alive and Accounting (sections 2.2.10 and 2.2.15):
 * 16 reserved bits, then the 16-bit timer value in seconds.
 */
public sealed interface TimerObject extends CopsObject permits KaTimer, AcctTimer {
  int seconds();

  @Override
  default int contentLength() {
    return 4;
  }

  @Override
  default void writeContent(ByteBuf out) {
    out.writeShort(0).writeShort(seconds());
  }
}
