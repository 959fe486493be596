package dev.portcullis.crypto;

import java.util.Objects;

/** Comparisons whose running time does not depend on where the inputs differ. */
final class ConstantTime {
  private ConstantTime() {}

  /**
   * True if {@code a[aOff, aOff+len)} equals {@code b[bOff, bOff+len)}. Takes the same time for any
   * contents of the given length: use it for MACs and tags, never {@link java.util.Arrays#equals}.
   */
  public static boolean equals(byte[] a, int aOff, byte[] b, int bOff, int len) {
    Objects.checkFromIndexSize(aOff, len, a.length);
    Objects.checkFromIndexSize(bOff, len, b.length);
    int diff = 0;
    for (int i = 0; i < len; i++) {
      diff |= a[aOff + i] ^ b[bOff + i];
    }
    return diff == 0;
  }
}
