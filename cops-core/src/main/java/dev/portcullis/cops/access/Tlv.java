package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.access.TlvBlock.Attribute;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The attribute framing shared by Portcullis access requests and decisions (docs/cops-wire.md): a
 * 4-byte preamble (format version 1, reserved, attribute count) then attributes of Type (16 bits),
 * Length (16 bits, value bytes only) and the value, zero padded to 32 bits.
 */
final class Tlv {
  static final int FORMAT_VERSION = 1;

  /** Attribute types from this value up are extensions: carried through, never rejected. */
  static final int EXTENSION_BASE = 0x8000;

  private Tlv() {}

  /**
   * {@code list} plus {@code item}: an immutable one-element list for the first (the usual case,
   * kept as it is by the records), a growing list after that.
   */
  static List<String> append(List<String> list, String item) {
    if (list.isEmpty()) {
      return List.of(item);
    }
    List<String> l = new ArrayList<>(list);
    l.add(item);
    return l;
  }

  /** An immutable copy of a category list (the shared empty list when there are none). */
  static List<String> categories(List<String> c) {
    return c == null || c.isEmpty() ? List.of() : List.copyOf(c);
  }

  /** An immutable, type-ordered copy of extension attributes, each type 0x8000 to 0xFFFF. */
  static Map<Integer, Bytes> extensions(Map<Integer, Bytes> e) {
    if (e == null || e.isEmpty()) {
      return Map.of();
    }
    for (int t : e.keySet()) {
      if (t < EXTENSION_BASE || t > 0xFFFF) {
        throw new IllegalArgumentException(
            "extension type: " + t + " (expected: 0x8000 to 0xffff)");
      }
    }
    return Collections.unmodifiableMap(new TreeMap<>(e));
  }

  /** What a format does with each of its own attributes. */
  @FunctionalInterface
  interface Known {
    void accept(Attribute a) throws CopsCodecException;
  }

  /**
   * Reads a block of a format whose own types are 1 to {@code maxType}: extensions (0x8000 and up)
   * go to {@code extensions}, each own attribute to {@code known}; another type below 0x8000, or an
   * attribute repeated (but {@code repeatable}, or -1 for none), is error 3 at its offset.
   */
  static void each(
      Bytes data, int maxType, int repeatable, Map<Integer, Bytes> extensions, Known known)
      throws CopsCodecException {
    boolean[] seen = new boolean[maxType + 1];
    for (Attribute a : read(data)) {
      int t = a.type();
      if (t >= EXTENSION_BASE) {
        if (extensions.put(t, a.value()) != null) {
          throw repeated(a);
        }
        continue;
      }
      if (t < 1 || t > maxType) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            a.offset(),
            "attribute type",
            t,
            "1 to " + maxType + ", or 0x8000 and up");
      }
      if (t != repeatable && seen[t]) {
        throw repeated(a);
      }
      seen[t] = true;
      known.accept(a);
    }
  }

  static CopsCodecException repeated(Attribute a) {
    return CopsCodecException.at(
        BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute " + a.type(), "repeated", "at most once");
  }

  static TlvBlock read(Bytes data) throws CopsCodecException {
    // One copy of the block; attributes are views into it, so decoding copies each value once,
    // into the String or address it becomes.
    byte[] block = data.toArray();
    int n = block.length;
    if (n < 4) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, 0, "attribute preamble", n + " bytes", "4");
    }
    int version = block[0] & 0xFF;
    if (version != FORMAT_VERSION) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, 0, "format version", version, String.valueOf(FORMAT_VERSION));
    }
    int count = u16(block, 2);
    // at most one attribute per 4 bytes: a count the block cannot hold fails below, never here
    int[] at = new int[4 * Math.min(count, (n - 4) / 4)];
    int off = 4;
    for (int i = 0; i < count; i++) {
      if (n - off < 4) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            off,
            "attribute " + (i + 1) + " of " + count,
            "missing",
            count + " attributes as the preamble says");
      }
      int type = u16(block, off);
      int len = u16(block, off + 2);
      int padded = (len + 3) & ~3;
      if (padded > n - off - 4) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, off + 2, "attribute length", len, "<= " + (n - off - 4));
      }
      at[4 * i] = type;
      at[4 * i + 1] = off + 4;
      at[4 * i + 2] = len;
      at[4 * i + 3] = off;
      off += 4 + padded;
    }
    if (off != n) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, off, "trailing bytes", n - off, "none after the last attribute");
    }
    return new TlvBlock(block, at, count);
  }

  static int u16(byte[] b, int at) {
    return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
  }

  static void expectLength(Attribute a, String name, int... allowed) throws CopsCodecException {
    for (int l : allowed) {
      if (a.length() == l) {
        return;
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int l : allowed) {
      sb.append(sb.length() == 0 ? "" : " or ").append(l);
    }
    throw CopsCodecException.at(
        BAD_MESSAGE_FORMAT, 0, a.offset() + 2, name + " length", a.length(), sb.toString());
  }

  static int u8(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 1);
    return a.u8(0);
  }

  static int u16(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 2);
    return u16(a.block(), a.valueOffset());
  }

  static long u32(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 4);
    return ((long) u16(a.block(), a.valueOffset()) << 16) | u16(a.block(), a.valueOffset() + 2);
  }

  /** An unsigned 64-bit counter; one with the top bit set is refused (a Java long holds 63). */
  static long u64(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | a.u8(i);
    }
    if (v < 0) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, a.offset() + 4, name, Long.toUnsignedString(v), "below 2^63");
    }
    return v;
  }

  // A strict decoder per thread: making one per attribute costs more than the decoding.
  private static final ThreadLocal<CharsetDecoder> UTF8 =
      ThreadLocal.withInitial(
          () ->
              StandardCharsets.UTF_8
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT));

  static String utf8(Attribute a, String name) throws CopsCodecException {
    byte[] b = a.block();
    int from = a.valueOffset();
    int to = from + a.length();
    boolean ascii = true;
    for (int i = from; i < to; i++) {
      if (b[i] < 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      // The common case, without a decoder.
      return new String(b, from, a.length(), StandardCharsets.US_ASCII);
    }
    try {
      return UTF8.get().decode(ByteBuffer.wrap(b, from, a.length())).toString();
    } catch (CharacterCodingException e) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, a.offset() + 4, name, "invalid UTF-8", "UTF-8 text");
    }
  }

  static InetAddress address(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 4, 16);
    try {
      byte[] addr = Arrays.copyOfRange(a.block(), a.valueOffset(), a.valueOffset() + a.length());
      return addr.length == 4
          ? InetAddress.getByAddress(addr)
          : Inet6Address.getByAddress(null, addr, -1);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * An address prefix: the address (4 or 16 bytes) then the prefix length (1 byte, at most 32 or
   * 128); the bits past the prefix must be zero.
   */
  static TrafficSelector prefix(Attribute a, String name) throws CopsCodecException {
    expectLength(a, name, 5, 17);
    int bits = a.u8(a.length() - 1);
    int max = (a.length() - 1) * 8;
    if (bits > max) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT,
          0,
          a.offset() + 4 + a.length() - 1,
          name + " prefix length",
          bits,
          "0 to " + max);
    }
    byte[] addr = Arrays.copyOfRange(a.block(), a.valueOffset(), a.valueOffset() + a.length() - 1);
    try {
      return new TrafficSelector(
          addr.length == 4
              ? InetAddress.getByAddress(addr)
              : Inet6Address.getByAddress(null, addr, -1),
          bits);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    } catch (IllegalArgumentException e) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, a.offset() + 4, name, "host bits set", "zero past the prefix");
    }
  }

  /** Builds the attribute block in one growing array, preamble included. */
  static final class Writer {
    private byte[] buf = new byte[64];
    private int len = 4; // the preamble is filled in by toBytes()
    private int count;

    private void ensure(int extra) {
      if (len + extra > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
      }
    }

    Writer put(int type, byte[] value) {
      if (value.length > 0xFFFF) {
        throw new IllegalArgumentException(
            "attribute " + type + ": " + value.length + " bytes (expected: <= 65535)");
      }
      int padded = (value.length + 3) & ~3;
      ensure(4 + padded);
      buf[len] = (byte) (type >> 8);
      buf[len + 1] = (byte) type;
      buf[len + 2] = (byte) (value.length >> 8);
      buf[len + 3] = (byte) value.length;
      System.arraycopy(value, 0, buf, len + 4, value.length);
      len += 4 + padded; // the array is zero-filled, so the padding already is zero
      count++;
      return this;
    }

    Writer u8(int type, int v) {
      return put(type, new byte[] {(byte) v});
    }

    Writer u16(int type, int v) {
      return put(type, new byte[] {(byte) (v >> 8), (byte) v});
    }

    Writer u32(int type, long v) {
      return put(type, new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v});
    }

    Writer u64(int type, long v) {
      byte[] b = new byte[8];
      for (int i = 7; i >= 0; i--) {
        b[i] = (byte) v;
        v >>>= 8;
      }
      return put(type, b);
    }

    Writer address(int type, InetAddress a) {
      return put(type, a.getAddress());
    }

    Writer prefix(int type, TrafficSelector ts) {
      byte[] a = ts.address().getAddress();
      byte[] v = Arrays.copyOf(a, a.length + 1);
      v[a.length] = (byte) ts.prefixLength();
      return put(type, v);
    }

    Writer utf8(int type, String s) {
      return put(type, s.getBytes(StandardCharsets.UTF_8));
    }

    Bytes toBytes() {
      if (count > 0xFFFF) {
        throw new IllegalArgumentException("attributes: " + count + " (expected: <= 65535)");
      }
      buf[0] = FORMAT_VERSION;
      buf[1] = 0;
      buf[2] = (byte) (count >> 8);
      buf[3] = (byte) count;
      return Bytes.of(buf, 0, len);
    }
  }
}
