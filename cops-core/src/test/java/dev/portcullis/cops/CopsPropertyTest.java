package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * decode(encode(m)) == m for generated valid messages of every operation; and no input, random or
 * mutated, makes the decoder throw or emit anything but messages and one failure.
 */
class CopsPropertyTest {

  // ---- generators -------------------------------------------------------------------------------

  static Arbitrary<Bytes> bytes(int min, int max) {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(min).ofMaxSize(max).map(Bytes::of);
  }

  static Arbitrary<Integer> u16() {
    return Arbitraries.integers().between(0, 0xFFFF);
  }

  static Arbitrary<Long> u32() {
    return Arbitraries.longs().between(0, 0xFFFF_FFFFL);
  }

  static Arbitrary<InetAddress> address() {
    return Arbitraries.oneOf(
        bytes(4, 4).map(b -> addr(b.toArray(), false)),
        bytes(16, 16).map(b -> addr(b.toArray(), true)));
  }

  static InetAddress addr(byte[] b, boolean v6) {
    try {
      return v6 ? Inet6Address.getByAddress(null, b, -1) : InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  static Arbitrary<Handle> handle() {
    return bytes(1, 40).map(Handle::new);
  }

  static Arbitrary<Context> context() {
    return Combinators.combine(u16(), u16()).as(Context::new);
  }

  static Arbitrary<Interface> iface(boolean out) {
    return Combinators.combine(address(), u32()).as((a, i) -> new Interface(out, a, i));
  }

  static Arbitrary<ClientSI> clientSI() {
    return Combinators.combine(Arbitraries.of(true, false), bytes(0, 60)).as(ClientSI::new);
  }

  static Arbitrary<DecisionData> data(boolean lpdp, DecisionDataKind k) {
    return bytes(0, 30).map(b -> new DecisionData(lpdp, k, b)).injectNull(0.5);
  }

  static Arbitrary<DecisionSet> decisionSet(boolean lpdp) {
    Arbitrary<Context> ctx = lpdp ? context().injectNull(0.5) : context();
    return Combinators.combine(
            ctx,
            Combinators.combine(u16(), u16()).as((c, f) -> new DecisionFlags(lpdp, c, f)),
            data(lpdp, DecisionDataKind.STATELESS),
            data(lpdp, DecisionDataKind.REPLACEMENT),
            data(lpdp, DecisionDataKind.CLIENT_SPECIFIC),
            data(lpdp, DecisionDataKind.NAMED))
        .as(DecisionSet::new);
  }

  static Arbitrary<IntegrityObject> hmacIntegrity() {
    return Combinators.combine(u32(), u32(), bytes(0, 32))
        .as((k, s, d) -> (IntegrityObject) new Integrity(k, s, d))
        .injectNull(0.5);
  }

  static Arbitrary<IntegrityObject> anyIntegrity() {
    return Arbitraries.oneOf(hmacIntegrity(), u16().map(IntegrityTls::new));
  }

  static Arbitrary<PepId> pepId() {
    return Arbitraries.strings()
        .withCharRange((char) 1, (char) 0x7F)
        .ofMinLength(1)
        .ofMaxLength(40)
        .map(PepId::new);
  }

  static Arbitrary<Boolean> flag() {
    return Arbitraries.of(true, false);
  }

  @Provide
  Arbitrary<CopsMessage> messages() {
    Arbitrary<Integer> ct = u16();
    Arbitrary<CopsMessage> req =
        Combinators.combine(
                ct,
                flag(),
                handle(),
                context(),
                iface(false).injectNull(0.5),
                iface(true).injectNull(0.5),
                clientSI().list().ofMaxSize(3),
                decisionSet(true).list().ofMaxSize(3))
            .as(
                (c, s, h, x, in, out, si, lp) ->
                    (CopsMessage) new Request(c, s, h, x, in, out, si, lp, null));
    Arbitrary<CopsMessage> dec =
        Combinators.combine(
                ct, flag(), handle(), decisionSet(false).list().ofMinSize(1).ofMaxSize(3))
            .as((c, s, h, d) -> (CopsMessage) new Decision(c, s, h, d, null, null));
    Arbitrary<CopsMessage> decErr =
        Combinators.combine(ct, handle(), u16(), u16())
            .as((c, h, e, sc) -> (CopsMessage) Decision.error(c, h, new ErrorObject(e, sc)));
    Arbitrary<CopsMessage> rpt =
        Combinators.combine(
                ct, flag(), handle(), u16(), clientSI().injectNull(0.5), hmacIntegrity())
            .as((c, s, h, t, si, i) -> new Report(c, s, h, new ReportTypeObject(t), si, i));
    Arbitrary<CopsMessage> drq =
        Combinators.combine(ct, flag(), handle(), u16(), u16(), hmacIntegrity())
            .as((c, s, h, r, sc, i) -> new DeleteRequest(c, s, h, new Reason(r, sc), i));
    Arbitrary<CopsMessage> ssq =
        Combinators.combine(ct, flag(), handle().injectNull(0.5), hmacIntegrity())
            .as(SyncStateRequest::new);
    Arbitrary<CopsMessage> ssc =
        Combinators.combine(ct, flag(), handle().injectNull(0.5), hmacIntegrity())
            .as(SyncStateComplete::new);
    Arbitrary<CopsMessage> opn =
        Combinators.combine(
                ct,
                flag(),
                pepId(),
                clientSI().injectNull(0.5),
                Combinators.combine(address(), u16())
                    .as((a, p) -> new PdpAddress(true, a, p))
                    .injectNull(0.5),
                anyIntegrity().injectNull(0.3))
            .as(ClientOpen::new);
    Arbitrary<CopsMessage> cat =
        Combinators.combine(
                ct,
                flag(),
                u16().map(KaTimer::new),
                u16().map(AcctTimer::new).injectNull(0.5),
                anyIntegrity().injectNull(0.3))
            .as(ClientAccept::new);
    Arbitrary<CopsMessage> cc =
        Combinators.combine(
                ct,
                flag(),
                Combinators.combine(u16(), u16()).as(ErrorObject::new),
                Combinators.combine(address(), u16())
                    .as((a, p) -> new PdpAddress(false, a, p))
                    .injectNull(0.5),
                hmacIntegrity())
            .as(ClientClose::new);
    Arbitrary<CopsMessage> ka = Combinators.combine(flag(), hmacIntegrity()).as(KeepAlive::new);
    return Arbitraries.oneOf(req, dec, decErr, rpt, drq, ssq, ssc, opn, cat, cc, ka);
  }

  // ---- properties -------------------------------------------------------------------------------

  @Property(tries = 1000)
  void decodeOfEncodeIsIdentity(@ForAll("messages") CopsMessage m) throws Exception {
    byte[] b = CopsCodec.encode(m);
    assertEquals(m.length(), b.length);
    assertEquals(0, b.length % 4);
    assertEquals(m, CopsCodec.decode(b));
  }

  /** Feeds bytes to a decoder and checks only messages and at most one failure come out. */
  private static void onlyMessagesOrOneFailure(byte[] input, int chunk) {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder(4096, null));
    for (int i = 0; i < input.length; i += chunk) {
      ch.writeInbound(Unpooled.wrappedBuffer(input, i, Math.min(chunk, input.length - i)));
    }
    int failures = 0;
    for (Object o; (o = ch.readInbound()) != null; ) {
      if (o instanceof CopsDecodeFailure) {
        failures++;
        CopsCodecException e = ((CopsDecodeFailure) o).cause();
        assertTrue(e.getMessage().contains(" at offset "), e.getMessage());
        assertTrue(e.error() != null);
      } else {
        assertTrue(o instanceof CopsMessage, String.valueOf(o));
        assertEquals(0, failures, "a message after a failure");
      }
    }
    assertTrue(failures <= 1);
    assertFalse(ch.finish());
  }

  @Property(tries = 2000)
  void arbitraryBytesNeverEscape(@ForAll byte[] input, @ForAll("chunks") int chunk) {
    onlyMessagesOrOneFailure(input, chunk);
  }

  @Provide
  Arbitrary<Integer> chunks() {
    return Arbitraries.integers().between(1, 64);
  }

  @Provide
  Arbitrary<byte[]> mutated() {
    Arbitrary<byte[]> valid = messages().map(CopsCodec::encode);
    return Combinators.combine(
            valid,
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 3),
            Arbitraries.bytes())
        .as(
            (b, where, how, val) -> {
              if (b.length == 0) {
                return b;
              }
              int i = where % b.length;
              byte[] m = b.clone();
              switch (how) {
                case 0:
                  m[i] = val; // overwrite a byte
                  return m;
                case 1:
                  return Arrays.copyOf(b, i); // truncate
                case 2:
                  m[i] ^= (byte) (1 << (val & 7)); // flip a bit
                  return m;
                default:
                  byte[] longer = Arrays.copyOf(b, b.length + 4); // append, fix nothing
                  return longer;
              }
            });
  }

  @Property(tries = 3000)
  void mutatedMessagesNeverEscape(@ForAll("mutated") byte[] input, @ForAll("chunks") int chunk) {
    onlyMessagesOrOneFailure(input, chunk);
  }

  @Provide
  Arbitrary<List<CopsMessage>> messageLists() {
    return messages().list().ofMinSize(1).ofMaxSize(8);
  }

  @Property(tries = 300)
  void severalMessagesInOneStream(@ForAll("messageLists") List<CopsMessage> ms) {
    ByteBuf all = Unpooled.buffer();
    for (CopsMessage m : ms) {
      CopsCodec.encode(m, all);
    }
    EmbeddedChannel ch = new EmbeddedChannel(new CopsDecoder());
    ch.writeInbound(all);
    for (CopsMessage m : ms) {
      assertEquals(m, ch.readInbound());
    }
    assertFalse(ch.finish());
  }
}
