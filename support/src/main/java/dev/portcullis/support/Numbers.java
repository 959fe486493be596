package dev.portcullis.support;

/**
 * Numbers read from the network or a file, with their range checked: a value outside it is refused
 * with a message naming the field, never narrowed or wrapped ({@code (int) Long.parseLong} turns
 * 4294967300 into 4).
 */
public final class Numbers {
  /** The largest unsigned 32-bit value, 4294967295. */
  public static final long UINT32_MAX = 0xFFFF_FFFFL;

  private Numbers() {}

  /**
   * {@code text} as a decimal number in {@code [min, max]}.
   *
   * @throws IllegalArgumentException naming {@code field}, the text and the range
   */
  public static long parse(String text, String field, long min, long max) {
    if (text == null
        || text.isEmpty()
        || text.length() > 20
        || !text.chars().allMatch(Numbers::digit)) {
      throw outOfRange(text, field, min, max);
    }
    long v;
    try {
      v = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw outOfRange(text, field, min, max);
    }
    if (v < min || v > max) {
      throw outOfRange(text, field, min, max);
    }
    return v;
  }

  /** {@code text} as an unsigned 32-bit number, returned in an int's 32 bits. */
  public static int unsigned32(String text, String field) {
    return (int) parse(text, field, 0, UINT32_MAX);
  }

  /** {@code v} checked to be an unsigned 32-bit number, returned in an int's 32 bits. */
  public static int unsigned32(long v, String field) {
    if (v < 0 || v > UINT32_MAX) {
      throw outOfRange(Long.toString(v), field, 0, UINT32_MAX);
    }
    return (int) v;
  }

  private static boolean digit(int c) {
    return c >= '0' && c <= '9' || c == '-';
  }

  private static IllegalArgumentException outOfRange(
      String text, String field, long min, long max) {
    String shown =
        text == null
            ? "nothing"
            : "'" + (text.length() > 24 ? text.substring(0, 24) + "..." : text) + "'";
    return new IllegalArgumentException(
        field + ": " + shown + " is not a whole number from " + min + " to " + max);
  }
}
