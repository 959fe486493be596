package dev.portcullis.tunnel.vici;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * VICI's wire format (strongSwan's {@code src/libcharon/plugins/vici/README.md}; byte by byte with
 * examples in docs/tunnels.md). A frame is a 4-byte big-endian length, then the packet: its type (1
 * byte), for named types the name (1-byte length, ASCII), then the message: a sequence of elements,
 * each a type byte ({@code 1} section start + name, {@code 2} section end, {@code 3} key/value:
 * name + value, {@code 4} list start + name, {@code 5} list item + value, {@code 6} list end),
 * names with a 1-byte length, values with a 2-byte big-endian length.
 *
 * <p>Decoding checks every length against the bytes that remain and names the offset of what is
 * wrong; sections nest at most {@value #MAX_DEPTH} deep, a packet is at most {@value #MAX_PACKET}
 * bytes (charon's own limit, {@code VICI_MAX_MSGLEN}). A name repeated within one section (charon
 * does not forbid it) is kept, as {@code NAME#2}, {@code NAME#3}, ... .
 */
public final class ViciCodec {
  private ViciCodec() {}

  /** charon's largest packet ({@code VICI_MAX_MSGLEN}, 512 KiB). */
  public static final int MAX_PACKET = 512 * 1024;

  /** Deepest nesting of sections accepted from the daemon. */
  public static final int MAX_DEPTH = 32;

  static final int MAX_NAME = 255;
  static final int MAX_VALUE = 0xFFFF;

  private static final int SECTION_START = 1;
  private static final int SECTION_END = 2;
  private static final int KEY_VALUE = 3;
  private static final int LIST_START = 4;
  private static final int LIST_ITEM = 5;
  private static final int LIST_END = 6;

  /** Checks a name: 1 to 255 bytes of printable ASCII. */
  static String checkName(String name) {
    if (name.isEmpty() || name.length() > MAX_NAME) {
      throw new IllegalArgumentException(
          "VICI name '" + name + "': " + name.length() + " bytes (expected 1 to 255)");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new IllegalArgumentException(
            "VICI name '" + name + "': byte " + i + " is not printable ASCII");
      }
    }
    return name;
  }

  // ---- encoding ---------------------------------------------------------------------------------

  /** The frame for {@code p}: its 4-byte length, then the packet. */
  public static byte[] frame(ViciPacket p) {
    byte[] packet = packet(p);
    byte[] f = new byte[4 + packet.length];
    f[0] = (byte) (packet.length >>> 24);
    f[1] = (byte) (packet.length >>> 16);
    f[2] = (byte) (packet.length >>> 8);
    f[3] = (byte) packet.length;
    System.arraycopy(packet, 0, f, 4, packet.length);
    return f;
  }

  /** The packet's bytes (without the frame's length). */
  public static byte[] packet(ViciPacket p) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(p.type().code);
    if (p.type().named) {
      name(out, p.name());
    }
    message(out, p.message());
    if (out.size() > MAX_PACKET) {
      throw new IllegalArgumentException(
          "VICI "
              + p.name()
              + ": "
              + out.size()
              + " bytes, more than charon takes ("
              + MAX_PACKET
              + ")");
    }
    return out.toByteArray();
  }

  private static void message(ByteArrayOutputStream out, ViciMessage m) {
    for (Map.Entry<String, Object> e : m.entries().entrySet()) {
      Object v = e.getValue();
      if (v instanceof byte[] b) {
        out.write(KEY_VALUE);
        name(out, e.getKey());
        value(out, b);
      } else if (v instanceof List<?> l) {
        out.write(LIST_START);
        name(out, e.getKey());
        for (Object item : l) {
          out.write(LIST_ITEM);
          value(out, (byte[]) item);
        }
        out.write(LIST_END);
      } else {
        out.write(SECTION_START);
        name(out, e.getKey());
        message(out, (ViciMessage) v);
        out.write(SECTION_END);
      }
    }
  }

  private static void name(ByteArrayOutputStream out, String name) {
    byte[] b = name.getBytes(StandardCharsets.US_ASCII);
    out.write(b.length);
    out.writeBytes(b);
  }

  private static void value(ByteArrayOutputStream out, byte[] v) {
    out.write(v.length >>> 8);
    out.write(v.length & 0xFF);
    out.writeBytes(v);
  }

  // ---- decoding ---------------------------------------------------------------------------------

  /** Decodes one packet (the bytes after the frame's length). */
  public static ViciPacket decode(byte[] packet) throws ViciProtocolException {
    if (packet.length == 0) {
      throw new ViciProtocolException("VICI packet at byte 0: empty (no packet type)");
    }
    if (packet.length > MAX_PACKET) {
      throw new ViciProtocolException(
          "VICI packet: " + packet.length + " bytes, more than " + MAX_PACKET);
    }
    ViciPacket.Type type = ViciPacket.Type.of(packet[0] & 0xFF);
    if (type == null) {
      throw new ViciProtocolException(
          "VICI packet at byte 0: unknown packet type "
              + (packet[0] & 0xFF)
              + " (expected 0 to 7)");
    }
    Reader r = new Reader(packet, 1);
    String name = type.named ? r.name("packet name") : null;
    return new ViciPacket(type, name, r.message());
  }

  /** A cursor over one packet, each read checked against what remains. */
  private static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b, int at) {
      this.b = b;
      this.at = at;
    }

    private ViciProtocolException error(int where, String what) {
      return new ViciProtocolException("VICI packet at byte " + where + ": " + what);
    }

    String name(String what) throws ViciProtocolException {
      if (at >= b.length) {
        throw error(at, "ends where the length of the " + what + " was expected");
      }
      int n = b[at] & 0xFF;
      if (n == 0) {
        throw error(at, "the " + what + " is empty");
      }
      if (n > b.length - at - 1) {
        throw error(at, what + " of " + n + " bytes, " + (b.length - at - 1) + " remain");
      }
      for (int i = at + 1; i <= at + n; i++) {
        if (b[i] < 0x21 || b[i] > 0x7e) {
          throw error(i, "the " + what + " is not printable ASCII");
        }
      }
      String s = new String(b, at + 1, n, StandardCharsets.US_ASCII);
      at += 1 + n;
      return s;
    }

    byte[] value(String of) throws ViciProtocolException {
      if (b.length - at < 2) {
        throw error(at, "ends where the length of the value of '" + of + "' was expected");
      }
      int n = ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
      if (n > b.length - at - 2) {
        throw error(
            at, "value of '" + of + "' of " + n + " bytes, " + (b.length - at - 2) + " remain");
      }
      byte[] v = new byte[n];
      System.arraycopy(b, at + 2, v, 0, n);
      at += 2 + n;
      return v;
    }

    /** The elements up to the end of the packet, sections balanced. */
    ViciMessage message() throws ViciProtocolException {
      Deque<ViciMessage.Builder> open = new ArrayDeque<>();
      Deque<String> names = new ArrayDeque<>();
      ViciMessage.Builder current = ViciMessage.builder();
      while (at < b.length) {
        int start = at;
        int element = b[at++] & 0xFF;
        switch (element) {
          case SECTION_START -> {
            String name = unique(current, name("section name"));
            if (open.size() >= MAX_DEPTH) {
              throw error(start, "sections nested deeper than " + MAX_DEPTH);
            }
            open.push(current);
            names.push(name);
            current = ViciMessage.builder();
          }
          case SECTION_END -> {
            if (open.isEmpty()) {
              throw error(start, "a section end with no section open");
            }
            ViciMessage done = current.build();
            current = open.pop();
            current.section(names.pop(), done);
          }
          case KEY_VALUE -> {
            String name = unique(current, name("key"));
            current.put(name, value(name));
          }
          case LIST_START -> {
            String name = unique(current, name("list name"));
            List<byte[]> items = new ArrayList<>();
            while (true) {
              if (at >= b.length) {
                throw error(at, "list '" + name + "' not ended");
              }
              int e = b[at++] & 0xFF;
              if (e == LIST_END) {
                break;
              }
              if (e != LIST_ITEM) {
                throw error(at - 1, "element type " + e + " inside list '" + name + "'");
              }
              items.add(value(name));
            }
            current.rawList(name, items);
          }
          case LIST_ITEM, LIST_END -> throw error(start, "a list element outside a list");
          default -> throw error(start, "unknown element type " + element + " (expected 1 to 6)");
        }
      }
      if (!open.isEmpty()) {
        throw error(at, "ends inside section '" + names.peek() + "'");
      }
      return current.build();
    }

    private static String unique(ViciMessage.Builder in, String name) {
      if (!in.has(name)) {
        return name;
      }
      String stem = name.substring(0, Math.min(name.length(), MAX_NAME - 11)) + "#";
      for (int i = 2; ; i++) {
        String n = stem + i; // a section has at most MAX_PACKET names: i stays short
        if (!in.has(n)) {
          return n;
        }
      }
    }
  }
}
