package dev.portcullis.cops.pcmm;

/** Range checks for the unsigned fields of PCMM objects. */
final class Fields {
  private Fields() {}

  static void u8(String field, int v) {
    if (v < 0 || v > 0xFF) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 255)");
    }
  }

  static void u16(String field, int v) {
    if (v < 0 || v > 0xFFFF) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 65535)");
    }
  }

  static void u32(String field, long v) {
    if (v < 0 || v > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 4294967295)");
    }
  }
}
