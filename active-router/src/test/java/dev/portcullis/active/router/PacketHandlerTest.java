package dev.portcullis.active.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.Fixtures.SecretMap;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.ManualClock;
import dev.portcullis.support.Prefix;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One packet, one outcome, counted once: the router's handler driven through an {@link
 * EmbeddedChannel} with every kind of packet, the counts summing to the packets sent.
 */
class PacketHandlerTest {
  private static final long T0 = 1_800_000_000L;
  private static final int CODE = 5;
  private static final int NO_SERVICE = 6;
  private static final byte[] KCI = new byte[32];
  private static final InetSocketAddress SENDER = new InetSocketAddress("192.0.2.1", 4000);
  private static final InetSocketAddress NEXT = new InetSocketAddress("198.51.100.1", 4001);

  private final ManualClock clock = new ManualClock(T0);
  private final SecretMap secrets = new SecretMap().put(CODE, 1, KCI).put(NO_SERVICE, 1, KCI);
  private final FlowKeys keys =
      new FlowKeys(Fixtures.registry(), secrets, clock, 5, FlowKeys.Settings.DEFAULT);
  private final Counters counters = new Counters();
  private int sent;

  /** Drops every packet whose first payload byte is 0; fails on 2 (a faulty code). */
  private final ActiveService service =
      new ActiveService() {
        @Override
        public void configure(Map<String, String> settings) {}

        @Override
        public Verdict process(PacketContext p) {
          if (p.payload().get(0) == 2) {
            throw new IllegalStateException("a bug in the code");
          }
          return p.payload().get(0) == 0 ? Verdict.DROP : Verdict.FORWARD;
        }
      };

  private final EmbeddedChannel ch =
      new EmbeddedChannel(
          new PacketHandler(
              "ar-1",
              true,
              new Verifier(keys, EnumSet.of(MacAlgorithm.HMAC_SHA256_128)),
              code -> code == CODE ? service : null,
              new RouteTable(List.of(new RosaConfig.Route(Prefix.parse("198.51.100.0/24"), NEXT))),
              counters,
              clock));

  @AfterEach
  void close() {
    ch.finishAndReleaseAll();
    keys.close();
  }

  private static PacketSealer sealer(int code, String destination) {
    Flow f =
        new Flow(7, T0 - 10, T0 + 100, Fixtures.ip("192.0.2.1"), Fixtures.ip(destination), code);
    return Fixtures.sealer(f, 1, KCI, MacAlgorithm.HMAC_SHA256_128, false);
  }

  private void send(byte[] packet) {
    sent++;
    ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(packet), NEXT, SENDER));
    ch.runPendingTasks();
  }

  private long total() {
    long n = 0;
    for (Outcome o : Outcome.values()) {
      n += counters.get(o);
    }
    return n;
  }

  @Test
  void everyPacketIsCountedOnceWithWhatBecameOfIt() throws Exception {
    PacketSealer s = sealer(CODE, "198.51.100.9");
    byte[] good = s.seal(new byte[] {1});
    send(good);
    DatagramPacket out = assertInstanceOf(DatagramPacket.class, ch.readOutbound());
    assertEquals(NEXT, out.recipient());
    out.release();
    send(good); // a replay
    send(s.seal(new byte[] {0})); // the service drops it
    byte[] forged = s.seal(new byte[] {1});
    forged[forged.length - 1] ^= 1;
    send(forged);
    send(new byte[7]);
    send(sealer(CODE, "203.0.113.9").seal(new byte[] {1})); // no route
    send(sealer(NO_SERVICE, "198.51.100.9").seal(new byte[] {1})); // no module loaded
    assertNull(ch.readOutbound(), "only the first was forwarded");

    assertEquals(1, counters.get(Outcome.ACCEPTED));
    assertEquals(1, counters.get(Outcome.REPLAY));
    assertEquals(1, counters.get(Outcome.SERVICE_DROP));
    assertEquals(1, counters.get(Outcome.BAD_MAC));
    assertEquals(1, counters.get(Outcome.MALFORMED));
    assertEquals(1, counters.get(Outcome.NO_ROUTE));
    assertEquals(1, counters.get(Outcome.UNKNOWN_CODE));
    assertEquals(sent, total(), "one count per packet: " + counters);
  }

  @Test
  void aPacketWaitingForItsSecretIsCountedPendingThenWithItsFate() {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    secrets.gate = gate;
    byte[] p = sealer(CODE, "198.51.100.9").seal(new byte[] {1});
    send(p);
    assertNull(ch.readOutbound());
    assertEquals(1, counters.get(Outcome.PENDING));
    gate.complete(null);
    ch.runPendingTasks();
    DatagramPacket out = assertInstanceOf(DatagramPacket.class, ch.readOutbound());
    out.release();
    assertEquals(1, counters.get(Outcome.ACCEPTED));
    assertEquals(2, total(), "parked, then delivered: " + counters);
  }

  @Test
  void aPacketReadWhileItsCodesParkedPacketsAreBeingHandedBackGoesAfterThem() {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    secrets.gate = gate;
    PacketSealer s = sealer(CODE, "198.51.100.9");
    send(s.seal(new byte[] {1, 1}));
    send(s.seal(new byte[] {1, 2}));
    assertEquals(2, counters.get(Outcome.PENDING));
    // The secret arrives: it is cached at once, and the parked packets' hand-back is a task on the
    // loop. A packet read before that task runs finds the secret; it must still go after them.
    gate.complete(null);
    ch.writeOneInbound(
        new DatagramPacket(Unpooled.wrappedBuffer(s.seal(new byte[] {1, 3})), NEXT, SENDER));
    sent++;
    ch.runPendingTasks();
    ch.flushOutbound();
    for (int i = 1; i <= 3; i++) {
      DatagramPacket out = assertInstanceOf(DatagramPacket.class, ch.readOutbound());
      byte[] bytes = new byte[out.content().readableBytes()];
      out.content().getBytes(out.content().readerIndex(), bytes);
      out.release();
      assertEquals(i, bytes[bytes.length - 16 - 1], "the packets in the order they came");
    }
    assertNull(ch.readOutbound());
    assertEquals(3, counters.get(Outcome.ACCEPTED));
    assertEquals(sent, total() - 3, "each held packet counted pending, then with its fate");
  }

  @Test
  void aPayloadThatWillNotDecryptIsDroppedNotForwarded() {
    // A sender holding the flow's MAC key but not its encryption key: the MAC verifies, the GCM
    // tag does not. The service reads payloads, so the router decrypts, and must not forward.
    Flow f =
        new Flow(7, T0 - 10, T0 + 100, Fixtures.ip("192.0.2.1"), Fixtures.ip("198.51.100.9"), CODE);
    SessionKdf kdf = new SessionKdf(Fixtures.registry());
    MacKey prk = kdf.prepare(KCI);
    byte[] other = new byte[32];
    other[0] = 1;
    MacKey wrong = kdf.prepare(other);
    PacketSealer s =
        new PacketSealer(
            Fixtures.registry(),
            f,
            1,
            MacAlgorithm.HMAC_SHA256_128,
            kdf.macKey(prk, f, MacAlgorithm.HMAC_SHA256_128),
            kdf.encryptionKey(wrong, f));
    prk.destroy();
    wrong.destroy();
    ActiveService reader =
        new ActiveService() {
          @Override
          public boolean readsPayload() {
            return true;
          }

          @Override
          public Verdict process(PacketContext p) {
            p.payload();
            return Verdict.FORWARD;
          }
        };
    EmbeddedChannel c =
        new EmbeddedChannel(
            new PacketHandler(
                "ar-1",
                true,
                new Verifier(keys),
                code -> reader,
                new RouteTable(
                    List.of(new RosaConfig.Route(Prefix.parse("198.51.100.0/24"), NEXT))),
                counters,
                clock));
    c.writeInbound(
        new DatagramPacket(Unpooled.wrappedBuffer(s.seal(new byte[] {9})), NEXT, SENDER));
    c.runPendingTasks();
    assertNull(c.readOutbound());
    assertEquals(1, counters.get(Outcome.DECRYPT_FAILED));
    assertEquals(1, total(), "counted once: " + counters);
    c.finishAndReleaseAll();
  }

  /** A code that fails on every packet is one WARN line a minute, not one per packet. */
  @Test
  void aFaultyCodeDropsItsPacketsAndIsLoggedOnce() {
    try (LogLines log = LogLines.of(PacketHandler.class)) {
      PacketSealer s = sealer(CODE, "198.51.100.9");
      for (int i = 0; i < 40; i++) {
        send(s.seal(new byte[] {2}));
      }
      assertNull(ch.readOutbound());
      assertEquals(40, counters.get(Outcome.SERVICE_DROP));
      List<String> warnings = log.warnings();
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("code 5 failed on a packet"), warnings.get(0));
    }
  }

  @Test
  void malformedPacketsAreDroppedEvenWithoutVerification() {
    EmbeddedChannel plain =
        new EmbeddedChannel(
            new PacketHandler(
                "ar-1",
                false,
                new Verifier(keys),
                code -> service,
                new RouteTable(
                    List.of(new RosaConfig.Route(Prefix.parse("198.51.100.0/24"), NEXT))),
                counters,
                clock));
    byte[] p = sealer(CODE, "198.51.100.9").seal(new byte[] {1});
    p[ActivePacket.OFF_PAYLOAD_LENGTH + 3]++;
    plain.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(p), NEXT, SENDER));
    assertNull(plain.readOutbound());
    assertEquals(1, counters.get(Outcome.MALFORMED));
    plain.finishAndReleaseAll();
  }
}
