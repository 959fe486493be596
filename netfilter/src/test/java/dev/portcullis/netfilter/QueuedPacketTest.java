package dev.portcullis.netfilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** What the reader makes of the bytes the kernel hands over: never an exception. */
class QueuedPacketTest {
  /** Queue id 0x00000102, mark 0x80000001, an IPv4 header (20 bytes), a TCP header with SYN. */
  static final String SYN =
      "00000102"
          + "80000001"
          + "4500003c1c4640004006" // version 4, IHL 5, ..., TTL 64, protocol 6
          + "0000" // checksum
          + "0ae70701" // 10.231.7.1
          + "0ae70702" // 10.231.7.2
          + "b9a2270f" // 47522 > 9999
          + "00000000000000005002faf000000000"; // data offset 5, flags 0x02 (SYN)

  static QueuedPacket parse(String hex) {
    byte[] b = HexFormat.of().parseHex(hex);
    return QueuedPacket.parse(b, b.length);
  }

  @Test
  void aSynNamesItsFlow() throws Exception {
    QueuedPacket p = parse(SYN);
    assertEquals(0x102, p.id());
    assertEquals(0x80000001, p.mark());
    assertTrue(p.syn());
    assertEquals(
        new Flow(
            InetAddress.getByName("10.231.7.1"),
            47522,
            InetAddress.getByName("10.231.7.2"),
            9999,
            Flow.TCP),
        p.flow());
    assertEquals("tcp 10.231.7.1:47522 > 10.231.7.2:9999", p.flow().toString());
  }

  @Test
  void aSynAckIsNoFirstPacket() {
    assertFalse(parse(SYN.substring(0, SYN.length() - 14) + "12faf000000000").syn());
  }

  @Test
  void whatIsCutShortOrNotIpv4HasNoFlow() {
    for (int cut = 16; cut < 64; cut += 4) {
      QueuedPacket p = parse(SYN.substring(0, cut));
      assertEquals(0x102, p.id(), "cut at " + cut);
      assertTrue(p.flow() == null || !p.syn(), "cut at " + cut + ": no SYN read from it");
    }
    assertNull(
        parse("0000000100000000" + "6" + SYN.substring(17)).flow(), "IPv6: not read as IPv4");
    assertNull(
        parse("0000000100000000" + "4500003c1c4640004001" + SYN.substring(36)).flow(), "ICMP");
  }
}
