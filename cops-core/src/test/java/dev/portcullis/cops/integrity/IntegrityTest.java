package dev.portcullis.cops.integrity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.Request;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Integrity object in use: signing, verification, sequence numbers, keys. The digests in the
 * two known-answer tests were computed independently with {@code openssl dgst -md5 -hmac} and
 * {@code openssl dgst -sha256 -hmac} over the covered bytes written by hand.
 */
class IntegrityTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Clock CLOCK = Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC);
  private static final byte[] MD5_KEY = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SHA_KEY =
      "portcullis-integrity-key".getBytes(StandardCharsets.US_ASCII);
  private static CryptoRegistry registry;

  @BeforeAll
  static void registry() throws Exception {
    registry =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .defaults("SunJCE", "SUN")
                .enableLegacy(Algorithm.HMAC_MD5)
                .prewarm(false)
                .build());
  }

  @AfterAll
  static void close() {
    registry.close();
  }

  private static KeyRing ring(long id, IntegrityAlgorithm alg, byte[] key) {
    return KeyRing.builder(registry).add(id, alg, key, T0, T0.plus(Duration.ofDays(1))).build();
  }

  private static final CopsMessage OPN = ClientOpen.of(0, "pep-1");
  private static final CopsMessage KA = new KeepAlive(false, null);
  private static final CopsMessage REQ = Request.of(0xC0A5, Handle.of("h1"), new Context(1, 0));

  @Test
  void hmacMd5_96KnownAnswer() {
    IntegritySession s =
        new IntegritySession(ring(1, IntegrityAlgorithm.HMAC_MD5_96, MD5_KEY), CLOCK, true, 5);
    assertEquals(
        "10090000"
            + "00000020" // KA, length 32
            + "00181001" // Integrity: length 24, C-Num 16, C-Type 1
            + "00000001" // Key ID 1
            + "00000005" // Sequence Number 5
            + "b49f06a13f6d98698ec2d4e9", // HMAC-MD5 truncated to 96 bits (openssl)
        HEX.formatHex(s.encodeSigned(KA)));
    assertEquals(6, s.nextSendSequence());
  }

  @Test
  void hmacSha256_128KnownAnswerAndSequenceWrap() {
    IntegritySession s =
        new IntegritySession(
            ring(7, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY), CLOCK, true, 0xFFFF_FFFEL);
    assertEquals(
        "1001c0a5"
            + "00000034" // REQ, length 52
            + "0006010168310000" // Client Handle "h1"
            + "0008020100010000" // Context
            + "001c1001"
            + "00000007"
            + "fffffffe" // Integrity: length 28 | Key ID 7 | seq
            + "df61a75bc7d3df5e66e89d065e9048d9", // HMAC-SHA-256 truncated to 128 bits (openssl)
        HEX.formatHex(s.encodeSigned(REQ)));
    s.encodeSigned(KA);
    assertEquals(0, s.nextSendSequence(), "0xFFFFFFFF is followed by 0");
  }

  /** Sender and receiver sharing one key, with a decoder that verifies. */
  private static final class Link {
    final IntegritySession sender;
    final EmbeddedChannel receiver;

    Link(KeyRing senderRing, KeyRing receiverRing, long firstSequence) {
      sender = new IntegritySession(senderRing, CLOCK, true, firstSequence);
      receiver =
          new EmbeddedChannel(
              new CopsDecoder(
                  CopsCodec.DEFAULT_MAX_MESSAGE_SIZE,
                  new IntegritySession(receiverRing, CLOCK, true)));
    }

    Object deliver(byte[] bytes) {
      receiver.writeInbound(Unpooled.wrappedBuffer(bytes));
      return receiver.readInbound();
    }
  }

  private static CopsCodecException failure(Object o) {
    return assertInstanceOf(CopsDecodeFailure.class, o, String.valueOf(o)).cause();
  }

  @Test
  void signedMessagesVerifyAcrossTheWrap() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    Link l = new Link(r, r, 0xFFFF_FFFDL);
    assertEquals(OPN, ((CopsMessage) l.deliver(l.sender.encodeSigned(OPN))).withIntegrity(null));
    for (int i = 0; i < 5; i++) { // ...FE, ...FF, 0, 1, 2
      Object o = l.deliver(l.sender.encodeSigned(REQ));
      assertEquals(REQ, ((CopsMessage) o).withIntegrity(null), "message " + i);
    }
    assertFalse(l.receiver.finish());
  }

  @Test
  void aReplayedMessageIsRejected() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    Link l = new Link(r, r, 100);
    l.deliver(l.sender.encodeSigned(OPN));
    byte[] ka = l.sender.encodeSigned(KA);
    assertInstanceOf(KeepAlive.class, l.deliver(ka));
    CopsCodecException e = failure(l.deliver(ka));
    assertEquals(ErrorCode.AUTHENTICATION_FAILURE, e.error());
    assertEquals("Sequence Number: 101 at offset 16 (expected: 102)", e.getMessage());
  }

  @Test
  void aSkippedOrReorderedMessageIsRejected() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    Link l = new Link(r, r, 0);
    l.deliver(l.sender.encodeSigned(OPN));
    byte[] first = l.sender.encodeSigned(KA);
    byte[] second = l.sender.encodeSigned(KA);
    CopsCodecException e = failure(l.deliver(second));
    assertEquals("Sequence Number: 2 at offset 16 (expected: 1)", e.getMessage());
    assertNull(l.deliver(first), "nothing is accepted after a failure");
  }

  @Test
  void theSequenceStartsOnlyWithOpenOrAccept() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    Link l = new Link(r, r, 0);
    CopsCodecException e = failure(l.deliver(l.sender.encodeSigned(KA)));
    assertEquals(ErrorCode.AUTHENTICATION_FAILURE, e.error());
    assertTrue(e.getMessage().contains("before any OPN/CAT"), e.getMessage());
  }

  @Test
  void aWrongKeyOrUnknownKeyIdIsRejected() {
    KeyRing good = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    byte[] other = SHA_KEY.clone();
    other[0] ^= 1;
    Link wrongKey = new Link(good, ring(9, IntegrityAlgorithm.HMAC_SHA256_128, other), 0);
    CopsCodecException e = failure(wrongKey.deliver(wrongKey.sender.encodeSigned(OPN)));
    assertEquals(ErrorCode.AUTHENTICATION_FAILURE, e.error());
    assertEquals("Keyed Message Digest", e.field());

    Link unknownId = new Link(good, ring(10, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY), 0);
    CopsCodecException u = failure(unknownId.deliver(unknownId.sender.encodeSigned(OPN)));
    assertEquals(
        "Key ID: 9 at offset 24 (expected: a key shared with this peer and valid now)",
        u.getMessage());

    Link wrongAlg = new Link(good, ring(9, IntegrityAlgorithm.HMAC_MD5_96, SHA_KEY), 0);
    CopsCodecException a = failure(wrongAlg.deliver(wrongAlg.sender.encodeSigned(OPN)));
    assertTrue(a.getMessage().contains("(expected: 12 for HMAC-MD5-96)"), a.getMessage());
  }

  @Test
  void aMissingIntegrityIsError15WhenRequired() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY);
    Link l = new Link(r, r, 0);
    CopsCodecException e = failure(l.deliver(CopsCodec.encode(OPN)));
    assertEquals(ErrorCode.AUTHENTICATION_REQUIRED, e.error());
    assertEquals(0, e.clientType(), "the client type is known for the Client-Close");
  }

  @Test
  void aFlippedBitAnywhereIsNeverAccepted() {
    KeyRing r = ring(9, IntegrityAlgorithm.HMAC_MD5_96, MD5_KEY);
    IntegritySession sender = new IntegritySession(r, CLOCK, true, 0);
    byte[] opn = sender.encodeSigned(OPN);
    byte[] req = sender.encodeSigned(REQ);
    for (int i = 0; i < req.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = req.clone();
        bad[i] ^= (byte) (1 << bit);
        EmbeddedChannel ch =
            new EmbeddedChannel(
                new CopsDecoder(
                    CopsCodec.DEFAULT_MAX_MESSAGE_SIZE, new IntegritySession(r, CLOCK, true)));
        ch.writeInbound(Unpooled.wrappedBuffer(opn));
        assertInstanceOf(ClientOpen.class, ch.readInbound());
        ch.writeInbound(Unpooled.wrappedBuffer(bad));
        Object o = ch.readInbound();
        assertTrue(
            o == null || o instanceof CopsDecodeFailure,
            "byte " + i + " bit " + bit + " flipped and accepted: " + o);
        ch.finishAndReleaseAll();
      }
    }
  }

  @Test
  void overlappingKeysRollOver() {
    Instant t1 = T0.plus(Duration.ofHours(10));
    Instant t2 = T0.plus(Duration.ofHours(20));
    KeyRing r =
        KeyRing.builder(registry)
            .add(1, IntegrityAlgorithm.HMAC_SHA256_128, SHA_KEY, T0, t2)
            .add(2, IntegrityAlgorithm.HMAC_SHA256_128, MD5_KEY, t1, t2.plus(Duration.ofHours(10)))
            .build();
    assertEquals(1, r.signingKey(T0.plusSeconds(1)).keyId());
    assertEquals(2, r.signingKey(t1.plusSeconds(1)).keyId(), "the newer key signs in the overlap");
    assertEquals(1, r.verificationKey(1, t1.plusSeconds(1)).keyId(), "the older still verifies");
    assertNull(r.verificationKey(1, t2), "expired");
    assertThrows(IllegalStateException.class, () -> r.signingKey(T0.minusSeconds(1)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            KeyRing.builder(registry)
                .add(1, IntegrityAlgorithm.HMAC_SHA256_128, new byte[8], T0, t1));
    assertFalse(r.keys().toString().contains("portcullis"), "no key bytes in strings");
  }
}
