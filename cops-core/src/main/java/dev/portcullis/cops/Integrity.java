package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.checkContent;
import static dev.portcullis.cops.ObjectFields.u32;

import io.netty.buffer.ByteBuf;

/**
 * Message Integrity, HMAC digest (C-Num 16, C-Type 1): key id, sequence number and the keyed digest
 * over the message up to and including the sequence number.
 */
public record Integrity(long keyId, long sequence, Bytes digest) implements IntegrityObject {
  public Integrity {
    u32("Key ID", keyId);
    u32("Sequence Number", sequence);
    checkContent("Keyed Message Digest", digest, 0);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.INTEGRITY_HMAC;
  }

  @Override
  public int contentLength() {
    return 8 + digest.length();
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeInt((int) keyId).writeInt((int) sequence).writeBytes(digest.array());
  }
}
