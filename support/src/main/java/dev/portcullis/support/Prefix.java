package dev.portcullis.support;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An address prefix such as {@code 10.0.0.0/8} or {@code 2001:db8::/32}. Immutable. */
public final class Prefix {
  private final byte[] network;
  private final int length;
  private final long high; // the prefix as two longs (IPv4: high 0, low the address)
  private final long low;
  private final long maskHigh;
  private final long maskLow;

  private Prefix(byte[] network, int length) {
    this.network = network;
    this.length = length;
    boolean v6 = network.length == 16;
    int bits = v6 ? 128 : 32;
    long h = 0;
    long l = 0;
    for (int i = 0; i < network.length; i++) {
      if (v6 && i < 8) {
        h = (h << 8) | (network[i] & 0xFF);
      } else {
        l = (l << 8) | (network[i] & 0xFF);
      }
    }
    long mh;
    long ml;
    if (v6) {
      mh = length == 0 ? 0 : length >= 64 ? -1L : -1L << (64 - length);
      ml = length <= 64 ? 0 : length == 128 ? -1L : -1L << (128 - length);
    } else {
      mh = 0;
      ml = length == 0 ? 0 : (0xFFFF_FFFFL << (32 - length)) & 0xFFFF_FFFFL;
    }
    if (length > bits) {
      throw new IllegalArgumentException("prefix length " + length + " > " + bits);
    }
    this.maskHigh = mh;
    this.maskLow = ml;
    this.high = h & mh;
    this.low = l & ml;
  }

  /** Parses {@code address/length} (a bare address is a /32 or /128). */
  public static Prefix parse(String text) {
    String s = text.trim();
    int slash = s.indexOf('/');
    String a = slash < 0 ? s : s.substring(0, slash);
    if (!a.matches("[0-9A-Fa-f:.]+")) {
      throw new IllegalArgumentException(
          "prefix '" + text + "': not a literal IPv4 or IPv6 address");
    }
    byte[] bytes;
    try {
      bytes = InetAddress.getByName(a).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("prefix '" + text + "': not an address", e);
    }
    int bits = bytes.length * 8;
    int len = bits;
    if (slash >= 0) {
      try {
        len = Integer.parseInt(s.substring(slash + 1));
      } catch (NumberFormatException e) {
        len = -1;
      }
      if (len < 0 || len > bits) {
        throw new IllegalArgumentException("prefix '" + text + "': length must be 0 to " + bits);
      }
    }
    return new Prefix(bytes, len);
  }

  public boolean ipv6() {
    return network.length == 16;
  }

  /** True if the address, as two longs (the router's packet view gives it so), is in. */
  public boolean contains(boolean ipv6, long addressHigh, long addressLow) {
    return ipv6 == ipv6() && (addressHigh & maskHigh) == high && (addressLow & maskLow) == low;
  }

  public boolean contains(InetAddress a) {
    byte[] b = a.getAddress();
    long h = 0;
    long l = 0;
    for (int i = 0; i < b.length; i++) {
      if (b.length == 16 && i < 8) {
        h = (h << 8) | (b[i] & 0xFF);
      } else {
        l = (l << 8) | (b[i] & 0xFF);
      }
    }
    return contains(b.length == 16, h, l);
  }

  @Override
  public String toString() {
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/" + length;
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
