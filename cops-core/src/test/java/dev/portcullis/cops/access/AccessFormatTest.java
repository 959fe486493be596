package dev.portcullis.cops.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.ErrorCode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The Portcullis access client type's attribute format, against the bytes in docs/cops-wire.md. */
class AccessFormatTest {
  static Bytes hex(String s) {
    return Bytes.of(HexFormat.of().parseHex(s.replaceAll("#[^\n]*", "").replaceAll("\\s", "")));
  }

  /** The request example of docs/cops-wire.md, byte for byte. */
  static final Bytes REQUEST =
      hex(
          """
          01 00 0009                 # format version 1, reserved, 9 attributes
          0001 0001 01 000000        # OPERATION: ACCESS (1), 3 bytes padding
          0002 0005 616c696365 000000  # SUBJECT "alice"
          0003 0002 0002 0000        # SESSION_LEVEL 2
          0004 0003 6e6174 00        # CATEGORY "nat"
          0005 0004 c0000201         # SOURCE_ADDRESS 192.0.2.1
          0007 0004 c6336401         # DESTINATION_ADDRESS 198.51.100.1
          0008 0002 01bb 0000        # DESTINATION_PORT 443
          0009 0001 06 000000        # PROTOCOL 6 (TCP)
          000b 0001 01 000000        # ACCESS_MODE READ
          """);

  static final Bytes DECISION =
      hex(
          """
          01 00 0003                 # format version 1, reserved, 3 attributes
          0001 0006 72756c652d37 0000  # RULE_ID "rule-7"
          0003 0002 0002 0000        # GRANTED_LEVEL 2
          0004 0004 00000e10         # VALID_FOR 3600 s
          """);

  @Test
  void theDocumentedRequestDecodesAndEncodesToTheSameBytes() throws Exception {
    AccessRequest r = AccessRequest.decode(REQUEST);
    assertEquals(AccessOperation.ACCESS, r.operation());
    assertEquals("alice", r.subject());
    assertEquals(2, r.sessionLevel());
    assertEquals(List.of("nat"), r.categories());
    assertEquals(InetAddress.getByName("192.0.2.1"), r.sourceAddress());
    assertEquals(InetAddress.getByName("198.51.100.1"), r.destinationAddress());
    assertEquals(443, r.destinationPort());
    assertEquals(6, r.protocol());
    assertEquals(AccessMode.READ, r.accessMode());
    assertEquals(REQUEST, r.encode());
  }

  @Test
  void theDocumentedDecisionDecodesAndEncodesToTheSameBytes() throws Exception {
    AccessDecision d = AccessDecision.decode(DECISION);
    assertEquals("rule-7", d.ruleId());
    assertEquals(2, d.grantedLevel());
    assertEquals(3600L, d.validForSeconds());
    assertEquals(DECISION, d.encode());
  }

  @Test
  void missingMandatoryAttributesAreError5() {
    CopsCodecException e =
        assertThrows(CopsCodecException.class, () -> AccessRequest.decode(hex("01000000")));
    assertEquals(ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING, e.error());
  }

  @Test
  void malformedAttributesAreRejectedWithOffsets() {
    assertEquals(
        "format version: 2 at offset 0 (expected: 1)",
        assertThrows(CopsCodecException.class, () -> AccessRequest.decode(hex("02000000")))
            .getMessage());
    assertEquals(
        "attribute length: 9 at offset 6 (expected: <= 4)",
        assertThrows(
                CopsCodecException.class,
                () -> AccessRequest.decode(hex("01000001 0001 0009 01000000")))
            .getMessage());
    assertEquals(
        "operation length: 2 at offset 6 (expected: 1)",
        assertThrows(
                CopsCodecException.class,
                () -> AccessRequest.decode(hex("01000001 0001 0002 0001 0000")))
            .getMessage());
    assertEquals(
        "attribute type: 99 at offset 4 (expected: 1 to 12, or 0x8000 and up)",
        assertThrows(
                CopsCodecException.class, () -> AccessRequest.decode(hex("01000001 0063 0000")))
            .getMessage());
    assertEquals(
        "trailing bytes: 4 at offset 8 (expected: none after the last attribute)",
        assertThrows(
                CopsCodecException.class,
                () -> AccessRequest.decode(hex("01000001 0063 0000 00000000")))
            .getMessage());
    assertThrows(
        CopsCodecException.class,
        () -> AccessRequest.decode(hex("01000002 0002 0001 61000000 0002 0001 62000000")));
    assertThrows(
        CopsCodecException.class, () -> AccessRequest.decode(hex("01000001 0002 0001 ff000000")));
  }

  @Test
  void extensionsAreCarriedThrough() throws Exception {
    AccessRequest r =
        new AccessRequest(
            AccessOperation.LOGIN,
            "bob",
            1,
            null,
            null,
            null,
            null,
            null,
            null,
            "ssh",
            null,
            null,
            Map.of(0x8001, Bytes.ofHex("cafe")));
    assertEquals(r, AccessRequest.decode(r.encode()));
  }

  @Provide
  Arbitrary<AccessRequest> requests() {
    Arbitrary<String> text = Arbitraries.strings().ofMinLength(1).ofMaxLength(20);
    Arbitrary<Integer> u16 = Arbitraries.integers().between(0, 0xFFFF);
    Arbitrary<InetAddress> addr =
        Arbitraries.bytes()
            .array(byte[].class)
            .ofSize(4)
            .map(
                b -> {
                  try {
                    return InetAddress.getByAddress(b);
                  } catch (UnknownHostException e) {
                    throw new AssertionError(e);
                  }
                });
    return Combinators.combine(
            Combinators.combine(
                    Arbitraries.of(AccessOperation.class),
                    text,
                    u16.injectNull(0.5),
                    text.list().ofMaxSize(3))
                .as(Arrays::asList),
            Combinators.combine(
                    addr.injectNull(0.5),
                    u16.injectNull(0.5),
                    addr.injectNull(0.5),
                    u16.injectNull(0.5))
                .as(Arrays::asList),
            Combinators.combine(
                    Arbitraries.integers().between(0, 255).injectNull(0.5),
                    text.injectNull(0.5),
                    Arbitraries.of(AccessMode.class).injectNull(0.5),
                    u16.injectNull(0.5))
                .as(Arrays::asList))
        .as(
            (a, b, c) ->
                new AccessRequest(
                    (AccessOperation) a.get(0),
                    (String) a.get(1),
                    (Integer) a.get(2),
                    castList(a.get(3)),
                    (InetAddress) b.get(0),
                    (Integer) b.get(1),
                    (InetAddress) b.get(2),
                    (Integer) b.get(3),
                    (Integer) c.get(0),
                    (String) c.get(1),
                    (AccessMode) c.get(2),
                    (Integer) c.get(3),
                    null));
  }

  @SuppressWarnings("unchecked")
  private static List<String> castList(Object o) {
    return (List<String>) o;
  }

  @Property(tries = 500)
  void requestsRoundTrip(@ForAll("requests") AccessRequest r) throws Exception {
    assertEquals(r, AccessRequest.decode(r.encode()));
  }

  @Property(tries = 1000)
  void arbitraryBytesFailOnlyWithTheCodecException(@ForAll byte[] data) {
    try {
      AccessRequest.decode(Bytes.of(data));
    } catch (CopsCodecException expected) {
      // the only allowed failure
    }
    try {
      AccessDecision.decode(Bytes.of(data));
    } catch (CopsCodecException expected) {
      // the only allowed failure
    }
  }
}
