package dev.portcullis.cops.access;

import java.net.InetAddress;
import java.util.Objects;

/**
 * An address prefix a tunnel carries traffic for ({@code 10.1.0.0/16}): the address and the prefix
 * length, the bits past the prefix zero.
 */
public record TrafficSelector(InetAddress address, int prefixLength) {
  public TrafficSelector {
    Objects.requireNonNull(address, "address");
    int max = address.getAddress().length * 8;
    if (prefixLength < 0 || prefixLength > max) {
      throw new IllegalArgumentException(
          "prefix length: " + prefixLength + " (expected: 0 to " + max + ")");
    }
    byte[] a = address.getAddress();
    for (int bit = prefixLength; bit < max; bit++) {
      if ((a[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
        throw new IllegalArgumentException(
            "traffic selector "
                + address.getHostAddress()
                + "/"
                + prefixLength
                + ": host bits set (expected: zero past the prefix)");
      }
    }
  }

  /** Parses {@code ADDRESS/LENGTH} (a literal address, never a name). */
  public static TrafficSelector parse(String s) {
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("traffic selector: " + s + " (expected: ADDRESS/LENGTH)");
    }
    String host = s.substring(0, slash);
    if (!host.matches("[0-9a-fA-F:.]+")) {
      throw new IllegalArgumentException(
          "traffic selector: " + s + " (expected: a literal address)");
    }
    try {
      return new TrafficSelector(
          InetAddress.getByName(host), Integer.parseInt(s.substring(slash + 1)));
    } catch (java.net.UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException("traffic selector: " + s + " (expected: ADDRESS/LENGTH)");
    }
  }

  /**
   * Whether every address of {@code other} is in this prefix (same family, a prefix at least as
   * long, the same leading bits).
   */
  public boolean contains(TrafficSelector other) {
    return other.prefixLength >= prefixLength && sameLeadingBits(other, prefixLength);
  }

  /** Whether it is one address (a /32, or a /128). */
  public boolean isHost() {
    return prefixLength == address.getAddress().length * 8;
  }

  /** Whether this prefix and {@code other} share an address (one contains the other). */
  public boolean overlaps(TrafficSelector other) {
    return sameLeadingBits(other, Math.min(prefixLength, other.prefixLength));
  }

  private boolean sameLeadingBits(TrafficSelector other, int bits) {
    byte[] a = address.getAddress();
    byte[] b = other.address.getAddress();
    if (a.length != b.length) {
      return false;
    }
    for (int bit = 0; bit < bits; bit++) {
      int mask = 0x80 >>> (bit % 8);
      if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return address.getHostAddress() + "/" + prefixLength;
  }
}
