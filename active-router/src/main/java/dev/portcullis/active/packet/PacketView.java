package dev.portcullis.active.packet;

import static dev.portcullis.active.packet.ActivePacket.*;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * A reusable, allocation-free view of one active packet in a buffer (heap or direct): {@link #wrap}
 * checks the structure, the accessors read fields in place with absolute gets. Never moves the
 * buffer's position or limit. Not thread-safe: one view per thread.
 */
public final class PacketView {
  private ByteBuffer buf;
  private int start;
  private int length;
  private boolean ipv6;
  private MacAlgorithm mac;
  private int payloadLength;

  /**
   * Views {@code buf[start, start+length)} as a packet.
   *
   * @return null when the structure is sound, else what is wrong (nothing here is cryptographic:
   *     the MAC is not checked)
   */
  public Malformation wrap(ByteBuffer buf, int start, int length) {
    this.buf = buf;
    this.start = start;
    this.length = length;
    this.mac = null;
    if (length < HEADER_V4) {
      return Malformation.TOO_SHORT;
    }
    if (u8(OFF_VERSION) != VERSION) {
      return Malformation.BAD_VERSION;
    }
    int flags = u8(OFF_FLAGS);
    if ((flags & ~KNOWN_FLAGS) != 0) {
      return Malformation.UNKNOWN_FLAGS;
    }
    MacAlgorithm m = MacAlgorithm.ofId(u8(OFF_MAC));
    if (m == null) {
      return Malformation.UNKNOWN_MAC;
    }
    if (u8(OFF_RESERVED) != 0) {
      return Malformation.RESERVED_NOT_ZERO;
    }
    ipv6 = (flags & FLAG_IPV6) != 0;
    long declared = buf.getInt(start + OFF_PAYLOAD_LENGTH) & 0xFFFF_FFFFL;
    if (declared != (long) length - headerLength(ipv6) - m.tagLength) {
      return length < headerLength(ipv6) ? Malformation.TOO_SHORT : Malformation.LENGTH_MISMATCH;
    }
    if ((flags & FLAG_ENCRYPTED) != 0 && declared < GCM_TAG) {
      return Malformation.ENCRYPTED_TOO_SHORT;
    }
    if (sequence() == 0) {
      return Malformation.SEQUENCE_ZERO;
    }
    if (Long.compareUnsigned(set(), sst()) < 0) {
      return Malformation.VALIDITY_INVERTED;
    }
    this.mac = m;
    this.payloadLength = (int) declared;
    return null;
  }

  private int u8(int off) {
    return buf.get(start + off) & 0xFF;
  }

  public ByteBuffer buffer() {
    return buf;
  }

  /** Offset of the packet's first byte in {@link #buffer()}. */
  public int start() {
    return start;
  }

  public int length() {
    return length;
  }

  public int flags() {
    return u8(OFF_FLAGS);
  }

  public boolean encrypted() {
    return (flags() & FLAG_ENCRYPTED) != 0;
  }

  public boolean ipv6() {
    return ipv6;
  }

  public MacAlgorithm mac() {
    return mac;
  }

  public int code() {
    return buf.getInt(start + OFF_CODE);
  }

  public int epoch() {
    return buf.getInt(start + OFF_EPOCH);
  }

  public long user() {
    return buf.getLong(start + OFF_USER);
  }

  public long sst() {
    return buf.getLong(start + OFF_SST);
  }

  public long set() {
    return buf.getLong(start + OFF_SET);
  }

  public long sequence() {
    return buf.getLong(start + OFF_SEQUENCE);
  }

  /** The first 8 bytes of an IPv6 source address; 0 for IPv4. */
  public long sourceHigh() {
    return ipv6 ? buf.getLong(start + OFF_SOURCE) : 0;
  }

  /** The last 8 bytes of an IPv6 source address, or the IPv4 address as an unsigned number. */
  public long sourceLow() {
    return ipv6
        ? buf.getLong(start + OFF_SOURCE + 8)
        : buf.getInt(start + OFF_SOURCE) & 0xFFFF_FFFFL;
  }

  public long destinationHigh() {
    return ipv6 ? buf.getLong(start + OFF_SOURCE + 16) : 0;
  }

  public long destinationLow() {
    return ipv6
        ? buf.getLong(start + OFF_SOURCE + 24)
        : buf.getInt(start + OFF_SOURCE + 4) & 0xFFFF_FFFFL;
  }

  /** Absolute offset in the buffer of the payload. */
  public int payloadOffset() {
    return start + headerLength(ipv6);
  }

  public int payloadLength() {
    return payloadLength;
  }

  /** Bytes the MAC covers: everything before the tag. */
  public int authenticatedLength() {
    return length - mac.tagLength;
  }

  /** Absolute offset in the buffer of the tag. */
  public int tagOffset() {
    return start + authenticatedLength();
  }

  /** The source address (allocates: for logs and tools, not the hot path). */
  public InetAddress source() {
    return address(start + OFF_SOURCE);
  }

  /** The destination address (allocates: for logs, routing set-up and tools). */
  public InetAddress destination() {
    return address(start + OFF_SOURCE + (ipv6 ? 16 : 4));
  }

  private InetAddress address(int at) {
    byte[] a = new byte[ipv6 ? 16 : 4];
    buf.get(at, a);
    try {
      return InetAddress.getByAddress(a);
    } catch (UnknownHostException e) {
      throw new AssertionError(e); // 4 or 16 bytes: cannot happen
    }
  }
}
