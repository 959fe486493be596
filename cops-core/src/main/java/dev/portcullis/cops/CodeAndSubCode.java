package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;

/**
 * The layout RFC 2748 gives the Error and Reason objects (sections 2.2.8 and 2.2.5): a 16-bit code,
 * then a 16-bit sub-code.
 */
public sealed interface CodeAndSubCode extends CopsObject permits ErrorObject, Reason {
  int code();

  int subCode();

  @Override
  default int contentLength() {
    return 4;
  }

  @Override
  default void writeContent(ByteBuf out) {
    out.writeShort(code()).writeShort(subCode());
  }
}
