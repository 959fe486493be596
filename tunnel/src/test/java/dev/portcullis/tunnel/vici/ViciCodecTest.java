package dev.portcullis.tunnel.vici;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** VICI's wire format from byte vectors: the README's own example, and charon's answers. */
class ViciCodecTest {
  static final HexFormat HEX = HexFormat.of();

  /**
   * The example of strongSwan's vici README ("Message format"), element by element: key1 = value1,
   * section1 = { sub-section = { key2 = value2 }, list1 = [ item1, item2 ] }.
   */
  static final String README =
      "03"
          + "04"
          + "6b657931"
          + "0006"
          + "76616c756531" // key1 = value1
          + "01"
          + "08"
          + "73656374696f6e31" // section1 {
          + "01"
          + "0b"
          + "7375622d73656374696f6e" // sub-section {
          + "03"
          + "04"
          + "6b657932"
          + "0006"
          + "76616c756532" // key2 = value2
          + "02" // }
          + "04"
          + "05"
          + "6c69737431" // list1 [
          + "05"
          + "0005"
          + "6974656d31" // item1
          + "05"
          + "0005"
          + "6974656d32" // item2
          + "06" // ]
          + "02"; // }

  static final ViciMessage README_MESSAGE =
      ViciMessage.builder()
          .put("key1", "value1")
          .section(
              "section1",
              ViciMessage.builder()
                  .section("sub-section", ViciMessage.builder().put("key2", "value2").build())
                  .list("list1", List.of("item1", "item2"))
                  .build())
          .build();

  @Test
  void theReadmeExampleEncodesAndDecodesByteForByte() throws Exception {
    byte[] packet =
        ViciCodec.packet(new ViciPacket(ViciPacket.Type.CMD_RESPONSE, null, README_MESSAGE));
    assertEquals("01" + README, HEX.formatHex(packet));
    ViciPacket p = ViciCodec.decode(HEX.parseHex("01" + README));
    assertEquals(ViciPacket.Type.CMD_RESPONSE, p.type());
    assertNull(p.name());
    assertEquals(README_MESSAGE, p.message());
    assertEquals("value2", p.message().section("section1").section("sub-section").text("key2"));
    assertEquals(List.of("item1", "item2"), p.message().section("section1").list("list1"));
  }

  @Test
  void aCommandIsFramedWithItsLengthAndName() throws Exception {
    // version: 4-byte length 9, CMD_REQUEST (0), name length 7, "version", no elements
    assertEquals(
        "00000009" + "00" + "07" + "76657273696f6e",
        HEX.formatHex(ViciCodec.frame(ViciPacket.command("version", ViciMessage.EMPTY))));
    ViciPacket answer =
        ViciCodec.decode(
            HEX.parseHex(
                "01"
                    + "03"
                    + "06"
                    + "6461656d6f6e"
                    + "0006"
                    + "636861726f6e" // daemon = charon
                    + "03"
                    + "07"
                    + "76657273696f6e"
                    + "0005"
                    + "352e392e38")); // version = 5.9.8
    assertEquals("charon", answer.message().text("daemon"));
    assertEquals("5.9.8", answer.message().text("version"));
    // an event: EVENT (7), named
    ViciPacket event = ViciCodec.decode(HEX.parseHex("07" + "07" + "6c6973742d7361" + README));
    assertEquals(ViciPacket.Type.EVENT, event.type());
    assertEquals("list-sa", event.name());
  }

  @Test
  void damagedPacketsNameTheByteAndWhatWasExpected() {
    String[][] cases = {
      {"", "at byte 0: empty"},
      {"08", "at byte 0: unknown packet type 8"},
      {"00", "at byte 1: ends where the length of the packet name"},
      {"0007766572", "at byte 1: packet name of 7 bytes, 3 remain"},
      {"01" + "09", "at byte 1: unknown element type 9"},
      {"01" + "03046b657931" + "00ff" + "76", "at byte 7: value of 'key1' of 255 bytes, 1 remain"},
      {"01" + "02", "at byte 1: a section end with no section open"},
      {"01" + "0103616263", "at byte 6: ends inside section 'abc'"},
      {"01" + "0403616263" + "0500", "at byte 7: ends where the length of the value of 'abc'"},
      {"01" + "0403616263" + "03", "at byte 6: element type 3 inside list 'abc'"},
      {"01" + "0403616263", "at byte 6: list 'abc' not ended"},
      {"01" + "05", "at byte 1: a list element outside a list"},
      {"01" + "0300", "at byte 2: the key is empty"},
      {"01" + "0302" + "0a0d" + "0000", "at byte 3: the key is not printable ASCII"},
    };
    for (String[] c : cases) {
      ViciProtocolException e =
          assertThrows(
              ViciProtocolException.class, () -> ViciCodec.decode(HEX.parseHex(c[0])), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
    }
  }

  @Test
  void sizesAndNestingAreBounded() {
    StringBuilder deep = new StringBuilder("01");
    for (int i = 0; i <= ViciCodec.MAX_DEPTH; i++) {
      deep.append("010161"); // section "a"
    }
    ViciProtocolException e =
        assertThrows(
            ViciProtocolException.class, () -> ViciCodec.decode(HEX.parseHex(deep.toString())));
    assertTrue(e.getMessage().contains("nested deeper than 32"), e.getMessage());
    assertThrows(
        ViciProtocolException.class, () -> ViciCodec.decode(new byte[ViciCodec.MAX_PACKET + 1]));
    IllegalArgumentException big =
        assertThrows(
            IllegalArgumentException.class,
            () -> ViciMessage.builder().put("data", new byte[70_000]));
    assertTrue(big.getMessage().contains("70000 bytes (at most 65535)"), big.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ViciMessage.builder().put("a b", "x"));
    assertThrows(
        IllegalArgumentException.class, () -> ViciMessage.builder().put("x".repeat(256), "x"));
  }

  @Test
  void aNameRepeatedInOneSectionIsKeptUnderASuffix() throws Exception {
    // key a = 1, key a = 2
    ViciPacket p = ViciCodec.decode(HEX.parseHex("01" + "030161000131" + "030161000132"));
    assertEquals(List.of("a", "a#2"), p.message().keys());
    assertEquals("2", p.message().text("a#2"));
  }

  @Test
  void secretsAreNeverShownAndValuesAreCopied() {
    byte[] psk = "0123456789abcdef".getBytes();
    ViciMessage m = ViciMessage.builder().put("id", "tunnel-7").put("data", psk).build();
    assertTrue(m.toString().contains("data=(hidden)"), m.toString());
    assertTrue(!m.toString().contains("0123456789abcdef"), m.toString());
    Arrays.fill(psk, (byte) 0);
    assertArrayEquals("0123456789abcdef".getBytes(), m.value("data"), "copied in");
  }
}
