package dev.portcullis.netfilter;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A packet the kernel queued for a verdict: its id in the queue and, read from its headers, the
 * flow it begins (IPv4 with TCP or UDP; null for anything else, which the reader drops).
 *
 * @param mark the packet's mark when it was queued
 * @param syn a TCP SYN without ACK: a connection's first packet
 */
public record QueuedPacket(int id, int mark, Flow flow, boolean syn) {

  /**
   * Reads {@code length} bytes of {@code b}: the id and the mark (4 bytes each, big-endian) and
   * then the packet from its IP header. A header that is cut short or not IPv4 gives a null flow,
   * never an exception.
   */
  static QueuedPacket parse(byte[] b, int length) {
    int id = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    int mark = (b[4] & 0xff) << 24 | (b[5] & 0xff) << 16 | (b[6] & 0xff) << 8 | (b[7] & 0xff);
    int ip = 8;
    if (length < ip + 20 || (b[ip] & 0xf0) != 0x40) {
      return new QueuedPacket(id, mark, null, false);
    }
    int ihl = (b[ip] & 0x0f) * 4;
    int protocol = b[ip + 9] & 0xff;
    int l4 = ip + ihl;
    if (ihl < 20 || (protocol != Flow.TCP && protocol != Flow.UDP) || length < l4 + 4) {
      return new QueuedPacket(id, mark, null, false);
    }
    try {
      InetAddress src = InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, ip + 12, ip + 16));
      InetAddress dst = InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, ip + 16, ip + 20));
      int sport = (b[l4] & 0xff) << 8 | (b[l4 + 1] & 0xff);
      int dport = (b[l4 + 2] & 0xff) << 8 | (b[l4 + 3] & 0xff);
      boolean syn =
          protocol == Flow.TCP && length >= l4 + 14 && (b[l4 + 13] & 0x12) == 0x02; // SYN, no ACK
      return new QueuedPacket(id, mark, new Flow(src, sport, dst, dport, protocol), syn);
    } catch (UnknownHostException e) {
      return new QueuedPacket(id, mark, null, false); // four bytes always make an address
    }
  }
}
