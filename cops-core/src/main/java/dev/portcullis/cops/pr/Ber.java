package dev.portcullis.cops.pr;

import dev.portcullis.cops.Bytes;
import java.io.ByteArrayOutputStream;

/** Just enough BER to show and build OBJECT IDENTIFIERs for PRIDs (tag 0x06, short length). */
final class Ber {
  private Ber() {}

  /** BER encoding of a dotted OID such as {@code 1.3.6.1.2.2.2.1}. */
  public static Bytes oid(String dotted) {
    String[] parts = dotted.split("\\.");
    if (parts.length < 2) {
      throw new IllegalArgumentException("OID: " + dotted + " (expected: at least two arcs)");
    }
    long first = Long.parseLong(parts[0]);
    long second = Long.parseLong(parts[1]);
    if (first > 2 || (first < 2 && second > 39)) {
      throw new IllegalArgumentException("OID: " + dotted + " (expected: a valid first arc pair)");
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    base128(body, first * 40 + second);
    for (int i = 2; i < parts.length; i++) {
      long arc = Long.parseLong(parts[i]);
      if (arc < 0) {
        throw new IllegalArgumentException("OID: " + dotted + " (expected: non-negative arcs)");
      }
      base128(body, arc);
    }
    byte[] b = body.toByteArray();
    if (b.length > 127) {
      throw new IllegalArgumentException("OID: " + dotted + " (expected: at most 127 bytes)");
    }
    byte[] out = new byte[b.length + 2];
    out[0] = 0x06;
    out[1] = (byte) b.length;
    System.arraycopy(b, 0, out, 2, b.length);
    return Bytes.of(out);
  }

  private static void base128(ByteArrayOutputStream out, long v) {
    int groups = 1;
    for (long t = v >>> 7; t != 0; t >>>= 7) {
      groups++;
    }
    for (int g = groups - 1; g >= 0; g--) {
      int septet = (int) (v >>> (7 * g)) & 0x7F;
      out.write(g == 0 ? septet : septet | 0x80);
    }
  }

  /** The dotted form of a BER OID, or null if {@code ber} is not one. */
  public static String oidToString(Bytes ber) {
    if (ber.length() < 3 || ber.get(0) != 0x06 || (ber.get(1) & 0xFF) != ber.length() - 2) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    long v = 0;
    boolean first = true;
    for (int i = 2; i < ber.length(); i++) {
      int b = ber.get(i) & 0xFF;
      if (v > (Long.MAX_VALUE >>> 7)) {
        return null;
      }
      v = (v << 7) | (b & 0x7F);
      if ((b & 0x80) == 0) {
        if (first) {
          long a = Math.min(2, v / 40);
          sb.append(a).append('.').append(v - a * 40);
          first = false;
        } else {
          sb.append('.').append(v);
        }
        v = 0;
      } else if (i == ber.length() - 1) {
        return null; // truncated arc
      }
    }
    return sb.toString();
  }
}
