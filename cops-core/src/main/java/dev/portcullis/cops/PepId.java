package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * PEP Identification (C-Num 11, C-Type 1): an ASCII string, NUL terminated and zero padded to a
 * 32-bit boundary inside the object, so the object length is a multiple of 4.
 */
public record PepId(String id) implements CopsObject {
  public PepId {
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("PEPID: empty (expected: at least one character)");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c == 0 || c > 0x7F) {
        throw new IllegalArgumentException(
            "PEPID: character " + (int) c + " at index " + i + " (expected: ASCII, no NUL)");
      }
    }
    if (((id.length() + 1 + 3) & ~3) > MAX_OBJECT_LENGTH - HEADER_LENGTH) {
      throw new IllegalArgumentException("PEPID: " + id.length() + " characters (too long)");
    }
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.PEP_ID;
  }

  @Override
  public int contentLength() {
    return (id.length() + 1 + 3) & ~3; // string, NUL, zero padding
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeCharSequence(id, StandardCharsets.US_ASCII);
    out.writeZero(contentLength() - id.length());
  }
}
