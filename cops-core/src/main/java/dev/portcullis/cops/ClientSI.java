package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.checkContent;

import io.netty.buffer.ByteBuf;

/** Client Specific Information (C-Num 9): C-Type 1 signaled, C-Type 2 named (COPS-PR). */
public record ClientSI(boolean named, Bytes data) implements CopsObject {
  public ClientSI {
    checkContent("ClientSI", data, 0);
  }

  @Override
  public ObjectType objectType() {
    return named ? ObjectType.CLIENT_SI_NAMED : ObjectType.CLIENT_SI_SIGNALED;
  }

  @Override
  public int contentLength() {
    return data.length();
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeBytes(data.array());
  }
}
