package dev.portcullis.active.packet;

/**
 * The active packet format, version 1 ({@code docs/active-packets.md} has it byte by byte). All
 * integers are big-endian; every field sits at a fixed offset once the address family is known, so
 * a verifier reads them in place.
 *
 * <pre>
 *  0  u8   version (1)             24  u64  SST, Unix seconds
 *  1  u8   flags                   32  u64  SET, Unix seconds
 *  2  u8   MAC algorithm           40  u64  sequence number (from 1)
 *  3  u8   reserved (0)            48  IPs  (4 bytes, or 16 with FLAG_IPV6)
 *  4  u32  Ci, code id             ..  IPd  (likewise)
 *  8  u32  Kci epoch               56 / 80  payload (payload length bytes)
 * 12  u32  payload length          ..  tag over every byte before it
 * 16  u64  U, user id
 * </pre>
 */
public final class ActivePacket {
  public static final int VERSION = 1;

  /** The payload is AES-128-GCM ciphertext followed by its 16-byte GCM tag. */
  public static final int FLAG_ENCRYPTED = 0x01;

  /** IPs and IPd are IPv6 addresses (16 bytes each); else IPv4 (4 bytes each). */
  public static final int FLAG_IPV6 = 0x02;

  /** The flags version 1 defines; a packet with any other bit set is malformed. */
  public static final int KNOWN_FLAGS = FLAG_ENCRYPTED | FLAG_IPV6;

  public static final int OFF_VERSION = 0;
  public static final int OFF_FLAGS = 1;
  public static final int OFF_MAC = 2;
  public static final int OFF_RESERVED = 3;
  public static final int OFF_CODE = 4;
  public static final int OFF_EPOCH = 8;
  public static final int OFF_PAYLOAD_LENGTH = 12;
  public static final int OFF_USER = 16;
  public static final int OFF_SST = 24;
  public static final int OFF_SET = 32;
  public static final int OFF_SEQUENCE = 40;
  public static final int OFF_SOURCE = 48;

  /** Header bytes with IPv4 addresses. */
  public static final int HEADER_V4 = OFF_SOURCE + 2 * 4;

  /** Header bytes with IPv6 addresses. */
  public static final int HEADER_V6 = OFF_SOURCE + 2 * 16;

  /** The GCM tag that ends an encrypted payload. */
  public static final int GCM_TAG = 16;

  /** Bytes of GCM nonce: four zero bytes, then the sequence number. */
  public static final int GCM_NONCE = 12;

  /** The largest UDP payload over IPv4 (65,535 - 20 - 8); no packet may be longer. */
  public static final int MAX_DATAGRAM = 65_507;

  private ActivePacket() {}

  /** Header length for an address family. */
  public static int headerLength(boolean ipv6) {
    return ipv6 ? HEADER_V6 : HEADER_V4;
  }

  /** Total length of a packet with this payload. */
  public static int length(boolean ipv6, int payloadLength, MacAlgorithm mac) {
    return headerLength(ipv6) + payloadLength + mac.tagLength;
  }

  /** The GCM nonce for a sequence number, written at {@code out[0, 12)}. */
  public static void nonce(long sequence, byte[] out) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    for (int i = 0; i < 8; i++) {
      out[4 + i] = (byte) (sequence >>> (56 - 8 * i));
    }
  }
}
