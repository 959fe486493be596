package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CopsCodecTest {

  static List<CopsVectors.Vector> vectors() {
    return CopsVectors.all();
  }

  private static byte[] encodeThroughChannel(CopsMessage m) {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsEncoder());
    ch.writeOutbound(m);
    ByteBuf out = ch.readOutbound();
    byte[] b = new byte[out.readableBytes()];
    out.readBytes(b);
    out.release();
    assertFalse(ch.finish());
    return b;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void encodesToTheBytesTheRfcLayoutGives(CopsVectors.Vector v) {
    assertEquals(Hex.of(v.bytes()), Hex.of(encodeThroughChannel(v.message())));
    assertEquals(v.bytes().length, v.message().length());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void decodesTheBytesBackToTheMessage(CopsVectors.Vector v) {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder());
    ch.writeInbound(Unpooled.wrappedBuffer(v.bytes()));
    CopsMessage m = ch.readInbound();
    assertEquals(v.message(), m);
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void aMessageSplitAtEveryByteArrivesWhole(CopsVectors.Vector v) {
    byte[] b = v.bytes();
    for (int cut = 1; cut < b.length; cut++) {
      EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder());
      assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(b, 0, cut)));
      ch.writeInbound(Unpooled.wrappedBuffer(b, cut, b.length - cut));
      assertEquals(v.message(), ch.readInbound(), "cut at " + cut);
      assertFalse(ch.finish());
    }
  }

  @Test
  void everyMessageInOneReadAndByteByByte() {
    List<CopsVectors.Vector> vs = vectors();
    ByteBuf all = Unpooled.buffer();
    for (CopsVectors.Vector v : vs) {
      all.writeBytes(v.bytes());
    }
    byte[] stream = new byte[all.readableBytes()];
    all.readBytes(stream);

    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder());
    ch.writeInbound(Unpooled.wrappedBuffer(stream));
    for (CopsVectors.Vector v : vs) {
      assertEquals(v.message(), ch.readInbound(), v.name());
    }
    assertFalse(ch.finish());

    EmbeddedChannel slow = new EmbeddedChannel(new CopsDecoder());
    for (byte b : stream) {
      slow.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }
    List<Object> got = new ArrayList<>();
    for (Object o; (o = slow.readInbound()) != null; ) {
      got.add(o);
    }
    assertEquals(vs.stream().map(CopsVectors.Vector::message).toList(), got);
    assertFalse(slow.finish());
  }

  // ---- malformed input --------------------------------------------------------------------------

  private static CopsCodecException reject(String hex) {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder());
    ch.writeInbound(Unpooled.wrappedBuffer(Hex.bytes(hex)));
    Object o = ch.readInbound();
    CopsDecodeFailure f = assertInstanceOf(CopsDecodeFailure.class, o, String.valueOf(o));
    // After a failure everything is discarded, even a valid message.
    ch.writeInbound(Unpooled.wrappedBuffer(Hex.bytes("10090000 00000008")));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
    return f.cause();
  }

  @Test
  void objectLengthBelowTheHeaderIsRejectedWithOffset() {
    CopsCodecException e = reject("10 01 c0a5 00000010  0003 01 01 00000000");
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, e.error());
    assertEquals(8, e.offset());
    assertEquals("object length: 3 at offset 8 (expected: >= 4)", e.getMessage());
    assertEquals(0xC0A5, e.clientType());
    assertEquals(OpCode.REQ, e.opCode());
  }

  @Test
  void anObjectRunningPastTheMessageIsRejected() {
    CopsCodecException e = reject("10 05 c0a5 00000010  0010 01 01 6831 0000");
    assertEquals(
        "object length: 16 at offset 8 (expected: <= 8, the rest of the message)", e.getMessage());
  }

  @Test
  void anUnknownObjectIsReportedWithCNumAndCTypeInTheSubCode() {
    CopsCodecException e = reject("10 05 c0a5 00000010  0008 11 01 00000000");
    assertEquals(ErrorCode.UNKNOWN_OBJECT, e.error());
    assertEquals(0x1101, e.subCode());
    assertEquals(
        "C-Num/C-Type: 17/1 at offset 8 (expected: an object RFC 2748 or RFC 4261 defines)",
        e.getMessage());
    CopsCodecException ct = reject("10 05 c0a5 00000010  0008 02 02 00000000");
    assertEquals(ErrorCode.UNKNOWN_OBJECT, ct.error());
    assertEquals(0x0202, ct.subCode());
  }

  @Test
  void aMissingMandatoryObjectIsError7() {
    CopsCodecException e = reject("10 01 c0a5 00000010  0006 01 01 6831 0000");
    assertEquals(ErrorCode.MANDATORY_OBJECT_MISSING, e.error());
    assertTrue(e.getMessage().startsWith("Context: end of message"), e.getMessage());
    assertEquals(Handle.of("h1"), e.handle(), "the handle is kept for the DEC+Error");
    CopsCodecException opn = reject("10 06 c0a5 00000008");
    assertEquals(ErrorCode.MANDATORY_OBJECT_MISSING, opn.error());
    assertEquals("PEPID", opn.field());
  }

  @Test
  void objectsOutOfOrderOrAfterIntegrityAreBadFormat() {
    // Context before Handle
    CopsCodecException e = reject("10 01 c0a5 00000018  0008 02 01 00010000  0006 01 01 6831 0000");
    assertEquals(ErrorCode.MANDATORY_OBJECT_MISSING, e.error());
    // Handle, Context, then a second Handle
    CopsCodecException dup =
        reject("10 01 c0a5 00000020 0006 01 01 6831 0000 0008 02 01 00010000 0006 01 01 6832 0000");
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, dup.error());
    assertEquals(24, dup.offset());
    // KA: Integrity, then a Handle
    CopsCodecException after =
        reject("10 09 0000 0000001c 000c 10 01 00000001 00000002 0006 01 01 6831 0000");
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, after.error());
    assertTrue(after.getMessage().contains("nothing after Integrity"), after.getMessage());
  }

  @Test
  void headerErrorsAreCaughtBeforeTheBodyIsBuffered() {
    assertEquals(
        "version: 2 at offset 0 (expected: 1)", reject("20 01 c0a5 00000008").getMessage());
    assertEquals(
        "op code: 11 at offset 1 (expected: 1 to 10)", reject("10 0b c0a5 00000008").getMessage());
    assertTrue(reject("12 01 c0a5 00000008").getMessage().startsWith("flags: 0x2 at offset 0"));
    assertEquals(
        "message length: 10 at offset 4 (expected: a multiple of 4)",
        reject("10 01 c0a5 0000000a").getMessage());
    assertEquals(
        "message length: 4 at offset 4 (expected: >= 8)",
        reject("10 01 c0a5 00000004").getMessage());
    // 2 GiB announced, 8 bytes sent: refused at once, nothing waits for the rest.
    CopsCodecException big = reject("10 01 c0a5 7ffffff0");
    assertEquals(
        "message length: 2147483632 at offset 4 (expected: <= "
            + CopsCodec.DEFAULT_MAX_MESSAGE_SIZE
            + ")",
        big.getMessage());
  }

  @Test
  void fixedSizeObjectsMustHaveTheirExactLength() {
    CopsCodecException e =
        reject("10 07 c0a5 00000010  0008 0a 01 0000 001e".replace("0008 0a", "0006 0a"));
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, e.error());
    assertEquals(
        "object length: 6 at offset 8 (expected: 8 for Keep-Alive Timer C-Type 1)", e.getMessage());
  }

  @Test
  void keepAliveMustHaveClientTypeZero() {
    CopsCodecException e = reject("10 09 0001 00000008");
    assertEquals("client-type: 1 at offset 2 (expected: 0 in a Keep-Alive)", e.getMessage());
  }

  @Test
  void pepIdMustBeNulTerminatedAscii() {
    assertEquals("PEPID", reject("10 06 c0a5 00000010 0008 0b 01 70657070").field());
    assertEquals("PEPID character", reject("10 06 c0a5 00000010 0008 0b 01 70e57000").field());
    assertEquals("PEPID", reject("10 06 c0a5 00000010 0008 0b 01 00000000").field());
  }

  @Test
  void integrityTlsOnlyInOpenAndAccept() {
    CopsCodecException e = reject("10 09 0000 00000010 0008 10 02 00000001");
    assertEquals("Integrity-TLS", e.field());
  }

  @Test
  void decisionsNeedFlagsFirstAndAtMostOneOfEachData() {
    // Context then data without flags
    CopsCodecException noFlags =
        reject("11 02 c0a5 00000020 0006 01 01 6831 0000 0008 02 01 00010000 0008 06 04 01020304");
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, noFlags.error());
    CopsCodecException twice =
        reject(
            "11 02 c0a5 00000030 0006 01 01 6831 0000 0008 02 01 00010000 0008 06 01 00010000"
                + " 0008 06 04 01020304 0008 06 04 01020304");
    assertTrue(twice.getMessage().contains("at most one per decision"), twice.getMessage());
    CopsCodecException neither = reject("11 02 c0a5 00000010 0006 01 01 6831 0000");
    assertEquals(ErrorCode.MANDATORY_OBJECT_MISSING, neither.error());
  }

  @Test
  void aDecisionsDataMayFollowItsFlagsInAnyOrder() throws Exception {
    byte[] b =
        Hex.bytes(
            "11 02 c0a5 00000030 0006 01 01 6831 0000 0008 02 01 00010000 0008 06 01 00010000"
                + " 0008 06 04 01020304 0008 06 02 05060708");
    Decision d = (Decision) CopsCodec.decode(b);
    assertEquals(Bytes.ofHex("05060708"), d.decisions().get(0).stateless().data());
    assertEquals(Bytes.ofHex("01020304"), d.decisions().get(0).clientSpecific().data());
  }

  @Test
  void aDifferentMaximumIsHonoured() {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder(16, null));
    ch.writeInbound(Unpooled.wrappedBuffer(CopsVectors.all().get(0).bytes())); // 20 bytes
    CopsDecodeFailure f = ch.readInbound();
    assertEquals("message length: 20 at offset 4 (expected: <= 16)", f.cause().getMessage());
    assertFalse(ch.finish());
    assertThrows(IllegalArgumentException.class, () -> new CopsDecoder(4, null));
  }

  // ---- building messages ------------------------------------------------------------------------

  @Test
  void messagesAreValidatedWhenBuilt() {
    assertThrows(NullPointerException.class, () -> Request.of(1, null, new Context(1, 0)));
    assertThrows(IllegalArgumentException.class, () -> ClientOpen.of(70000, "p"));
    assertThrows(IllegalArgumentException.class, () -> new PepId("é"));
    assertThrows(IllegalArgumentException.class, () -> new Context(0x10000, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Decision(1, true, CopsVectors.H1, List.of(), null, null));
    assertThrows(IllegalArgumentException.class, () -> new KeepAlive(false, new IntegrityTls(1)));
    assertArrayEquals(
        Hex.bytes("10 09 0000 00000008"), CopsCodec.encode(new KeepAlive(false, null)));
  }

  /** RFC 4261 section 4.1: reserved first, then Flags; what an independent PEP sends. */
  @Test
  void integrityTlsIsReservedThenFlags() throws CopsCodecException {
    ClientOpen rfc =
        (ClientOpen)
            CopsCodec.decode(
                Hex.bytes("10 06 0000 00000018 0008 0b 01 70657000 0008 10 02 0000 0001"));
    assertTrue(((IntegrityTls) rfc.integrity()).startTls());
    assertArrayEquals(
        Hex.bytes("0008 10 02 0000 0001"),
        Arrays.copyOfRange(CopsCodec.encode(rfc), 16, 24),
        "written in the RFC's layout");
    // Portcullis 0.1's swapped layout is still read as StartTLS (docs/cops-wire.md says why).
    ClientOpen old =
        (ClientOpen)
            CopsCodec.decode(
                Hex.bytes("10 06 0000 00000018 0008 0b 01 70657000 0008 10 02 0001 0000"));
    assertTrue(((IntegrityTls) old.integrity()).startTls());
    // Other reserved bits are ignored, as the RFC asks.
    ClientOpen noise =
        (ClientOpen)
            CopsCodec.decode(
                Hex.bytes("10 06 0000 00000018 0008 0b 01 70657000 0008 10 02 8000 0001"));
    assertTrue(((IntegrityTls) noise.integrity()).startTls());
  }
}
