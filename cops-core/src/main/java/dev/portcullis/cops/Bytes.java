package dev.portcullis.cops;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An immutable byte string with value equality, for the opaque parts of COPS objects (handles,
 * client-specific data, digests), so that messages built from them are values too.
 */
public final class Bytes {
  private static final HexFormat HEX = HexFormat.of();
  public static final Bytes EMPTY = new Bytes(new byte[0]);

  private final byte[] b;
  private int hash; // cached: handles are map keys on the PDP's hot path

  private Bytes(byte[] b) {
    this.b = b;
  }

  /** A copy of {@code bytes}. */
  public static Bytes of(byte[] bytes) {
    return bytes.length == 0 ? EMPTY : new Bytes(bytes.clone());
  }

  /** A copy of {@code bytes[off, off+len)}. */
  public static Bytes of(byte[] bytes, int off, int len) {
    Objects.checkFromIndexSize(off, len, bytes.length);
    return len == 0 ? EMPTY : new Bytes(Arrays.copyOfRange(bytes, off, off + len));
  }

  /** Parses hex digits (no separators). */
  public static Bytes ofHex(String hex) {
    return of(HEX.parseHex(hex));
  }

  /** Takes ownership of {@code bytes}: for the codec, which has just made a fresh array. */
  static Bytes wrap(byte[] bytes) {
    return bytes.length == 0 ? EMPTY : new Bytes(bytes);
  }

  public int length() {
    return b.length;
  }

  public byte get(int i) {
    return b[i];
  }

  /** The bytes {@code [off, off+len)} as a new value. */
  public Bytes slice(int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    return len == 0 ? EMPTY : new Bytes(Arrays.copyOfRange(b, off, off + len));
  }

  /** A copy of the contents. */
  public byte[] toArray() {
    return b.clone();
  }

  /** The backing array, for the codec's writes only: never modified, never handed out. */
  byte[] array() {
    return b;
  }

  public String toHex() {
    return HEX.formatHex(b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bytes && Arrays.equals(b, ((Bytes) o).b);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = Arrays.hashCode(b);
      hash = h;
    }
    return h;
  }

  @Override
  public String toString() {
    return b.length <= 64 ? toHex() : HEX.formatHex(b, 0, 64) + "...(" + b.length + " bytes)";
  }
}
