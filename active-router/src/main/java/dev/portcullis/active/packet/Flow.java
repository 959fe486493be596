package dev.portcullis.active.packet;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * What a session key is bound to (the paper's U, SST, SET, IPs, IPd, Ci): a user, a validity
 * interval in Unix seconds, two addresses of one family, and a code. Immutable.
 */
public final class Flow {
  private final long user;
  private final long sst;
  private final long set;
  private final InetAddress source;
  private final InetAddress destination;
  private final int code;

  public Flow(
      long user, long sst, long set, InetAddress source, InetAddress destination, int code) {
    this.source = Objects.requireNonNull(source, "source");
    this.destination = Objects.requireNonNull(destination, "destination");
    if ((source instanceof Inet4Address) != (destination instanceof Inet4Address)) {
      throw new IllegalArgumentException(
          "addresses: "
              + source.getHostAddress()
              + " and "
              + destination.getHostAddress()
              + " (expected: both IPv4 or both IPv6)");
    }
    if (Long.compareUnsigned(set, sst) < 0) {
      throw new IllegalArgumentException("SET " + set + " before SST " + sst);
    }
    this.user = user;
    this.sst = sst;
    this.set = set;
    this.code = code;
  }

  /** The flow a structurally sound packet names (allocates: the miss path and tools only). */
  public static Flow of(PacketView p) {
    return new Flow(p.user(), p.sst(), p.set(), p.source(), p.destination(), p.code());
  }

  public long user() {
    return user;
  }

  public long sst() {
    return sst;
  }

  public long set() {
    return set;
  }

  public InetAddress source() {
    return source;
  }

  public InetAddress destination() {
    return destination;
  }

  public int code() {
    return code;
  }

  public boolean ipv6() {
    return !(source instanceof Inet4Address);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Flow f
        && f.user == user
        && f.sst == sst
        && f.set == set
        && f.code == code
        && f.source.equals(source)
        && f.destination.equals(destination);
  }

  @Override
  public int hashCode() {
    return Objects.hash(user, sst, set, source, destination, code);
  }

  @Override
  public String toString() {
    return "Flow[U="
        + Long.toUnsignedString(user)
        + ", SST="
        + Long.toUnsignedString(sst)
        + ", SET="
        + Long.toUnsignedString(set)
        + ", "
        + source.getHostAddress()
        + " -> "
        + destination.getHostAddress()
        + ", Ci="
        + Integer.toUnsignedString(code)
        + "]";
  }
}
