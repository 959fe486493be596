package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.checkContent;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** Client Handle (C-Num 1, C-Type 1): an opaque value naming one request state. */
public record Handle(Bytes value) implements CopsObject {
  public Handle {
    checkContent("handle", value, 1);
  }

  public static Handle of(String ascii) {
    return new Handle(Bytes.of(ascii.getBytes(StandardCharsets.US_ASCII)));
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.HANDLE;
  }

  @Override
  public int contentLength() {
    return value.length();
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeBytes(value.array());
  }
}
