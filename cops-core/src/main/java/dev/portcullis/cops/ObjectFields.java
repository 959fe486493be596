package dev.portcullis.cops;

import java.util.Objects;

/** Argument checks the CopsObject records share. */
final class ObjectFields {
  private ObjectFields() {}

  static int u16(String field, int v) {
    if (v < 0 || v > 0xFFFF) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 65535)");
    }
    return v;
  }

  static long u32(String field, long v) {
    if (v < 0 || v > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 4294967295)");
    }
    return v;
  }

  static Bytes checkContent(String field, Bytes data, int min) {
    Objects.requireNonNull(data, field);
    if (data.length() < min
        || data.length() > CopsObject.MAX_OBJECT_LENGTH - CopsObject.HEADER_LENGTH) {
      throw new IllegalArgumentException(
          field
              + ": "
              + data.length()
              + " bytes (expected: "
              + min
              + " to "
              + (CopsObject.MAX_OBJECT_LENGTH - CopsObject.HEADER_LENGTH)
              + ")");
    }
    return data;
  }
}
