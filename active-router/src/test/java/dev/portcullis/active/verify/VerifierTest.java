package dev.portcullis.active.verify;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.Fixtures.SecretMap;
import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.support.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VerifierTest {
  private static final long T0 = 1_800_000_000L;
  private static final int CODE = 42;
  private static final byte[] KCI = new byte[32];

  static {
    for (int i = 0; i < KCI.length; i++) {
      KCI[i] = (byte) (i * 7 + 1);
    }
  }

  private final ManualClock clock = new ManualClock(T0);
  private final SecretMap secrets = new SecretMap().put(CODE, 1, KCI);
  private final Counters counters = new Counters();
  private FlowKeys keys;
  private Verifier verifier;
  private final Flow flow =
      new Flow(7, T0 - 10, T0 + 100, Fixtures.ip("192.0.2.1"), Fixtures.ip("198.51.100.9"), CODE);

  @BeforeEach
  void setUp() {
    keys = new FlowKeys(Fixtures.registry(), secrets, clock, 5, FlowKeys.Settings.DEFAULT);
    verifier = new Verifier(keys, EnumSet.allOf(MacAlgorithm.class));
  }

  @AfterEach
  void tearDown() {
    keys.close();
  }

  /** The verifier's last answer. */
  private Verification last;

  /** Drops are counted by the verifier's user (the router); here, by the test. */
  private Outcome counted(Outcome o) {
    if (o.isDrop()) {
      counters.count(o);
    }
    return o;
  }

  private Outcome verify(byte[] packet) {
    // At an offset inside a larger buffer, as a receive buffer would hold it.
    ByteBuffer b = ByteBuffer.allocateDirect(packet.length + 10);
    b.position(3);
    b.put(packet);
    b.position(0).limit(b.capacity());
    last = verifier.verify(b, 3, packet.length);
    assertEquals(0, b.position(), "position untouched");
    assertEquals(b.capacity(), b.limit(), "limit untouched");
    return counted(last.outcome());
  }

  private PacketSealer sealer(MacAlgorithm mac, boolean encrypt) {
    return Fixtures.sealer(flow, 1, KCI, mac, encrypt);
  }

  @Test
  void acceptsOnceThenCallsItAReplay() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] p = s.seal("hello".getBytes(StandardCharsets.US_ASCII));
    assertEquals(Outcome.ACCEPTED, verify(p));
    assertEquals(Outcome.REPLAY, verify(p));
    assertEquals(Outcome.ACCEPTED, verify(s.seal(new byte[0])));
    assertEquals(1, keys.derivations(), "one derivation for the flow, then cached");
    assertEquals(1, counters.get(Outcome.REPLAY));
  }

  @Test
  void everyMacAlgorithmAndBothAddressFamilies() {
    Flow v6 =
        new Flow(
            7, T0 - 10, T0 + 100, Fixtures.ip("2001:db8::1"), Fixtures.ip("2001:db8::2"), CODE);
    for (MacAlgorithm m : MacAlgorithm.values()) {
      assertEquals(Outcome.ACCEPTED, verify(sealer(m, false).seal(new byte[] {1, 2})), m.label);
      assertEquals(
          Outcome.ACCEPTED,
          verify(Fixtures.sealer(v6, 1, KCI, m, true).seal(new byte[] {3})),
          m + " v6");
    }
  }

  @Test
  void aLegacyMacIsRefusedUnlessAccepted() {
    Verifier strict = new Verifier(keys);
    byte[] p = sealer(MacAlgorithm.HMAC_MD5_96, false).seal(new byte[8]);
    ByteBuffer b = ByteBuffer.wrap(p);
    assertEquals(Outcome.MAC_REFUSED, counted(strict.verify(b, 0, p.length).outcome()));
  }

  /** Change any bit of any byte: never accepted. */
  @Test
  void everyFlippedBitIsRejected() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] p = s.seal("payload to protect".getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < p.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] t = p.clone();
        t[i] ^= (byte) (1 << bit);
        Outcome o = verify(t);
        assertTrue(o.isDrop(), "byte " + i + " bit " + bit + ": " + o);
      }
    }
    assertEquals(Outcome.ACCEPTED, verify(p), "the original still verifies afterwards");
  }

  @Test
  void outsideTheValidityIntervalIsDroppedBeforeAnyCrypto() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] p = s.seal(new byte[4]);
    clock.advanceSeconds(100 + 5 + 1); // past SET and the 5 s skew
    assertEquals(Outcome.EXPIRED, verify(p));
    clock.advanceSeconds(-(100 + 5 + 1) - 10 - 5 - 1); // before SST less skew
    assertEquals(Outcome.NOT_YET_VALID, verify(p));
    assertEquals(0, keys.derivations());
    clock.advanceSeconds(1); // SST - 5: inside the skew
    assertEquals(Outcome.ACCEPTED, verify(p));
  }

  @Test
  void aMissParksThePacketUntilTheSecretArrives() {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    secrets.gate = gate;
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] p1 = s.seal(new byte[4]);
    byte[] p2 = s.seal(new byte[4]);
    assertEquals(Outcome.PENDING, verify(p1));
    CompletableFuture<?> waiting = last.pending();
    assertEquals(Outcome.PENDING, verify(p2));
    assertEquals(1, secrets.asked.get(), "one fetch, however many packets wait");
    gate.complete(null);
    assertTrue(waiting.isDone());
    assertEquals(Outcome.ACCEPTED, verify(p1));
    assertEquals(Outcome.ACCEPTED, verify(p2));
  }

  @Test
  void unknownCodesAreDroppedAndNotAskedForAgainAtOnce() {
    Flow other = new Flow(7, T0, T0 + 10, flow.source(), flow.destination(), 99);
    byte[] p =
        Fixtures.sealer(other, 1, KCI, MacAlgorithm.HMAC_SHA256_128, false).seal(new byte[1]);
    assertEquals(Outcome.UNKNOWN_CODE, verify(p));
    assertEquals(Outcome.UNKNOWN_CODE, verify(p));
    assertEquals(1, secrets.asked.get());
    clock.advanceSeconds(6); // retryAfter is 5 s
    assertEquals(Outcome.UNKNOWN_CODE, verify(p));
    assertEquals(2, secrets.asked.get());
    assertEquals(3, counters.get(Outcome.UNKNOWN_CODE));
  }

  /** Kci rotates: packets of sessions issued under the old epoch still verify while it is kept. */
  @Test
  void rotationWithPacketsInFlight() {
    byte[] kci2 = KCI.clone();
    kci2[0] ^= 1;
    secrets.put(CODE, 2, kci2);
    PacketSealer old = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    PacketSealer fresh = Fixtures.sealer(flow, 2, kci2, MacAlgorithm.HMAC_SHA256_128, false);
    for (int i = 0; i < 5; i++) {
      assertEquals(Outcome.ACCEPTED, verify(old.seal(new byte[] {(byte) i})));
      assertEquals(Outcome.ACCEPTED, verify(fresh.seal(new byte[] {(byte) i})));
    }
    // A packet claiming the new epoch but keyed under the old secret fails.
    byte[] forged = old.seal(new byte[2]);
    forged[ActivePacket.OFF_EPOCH + 3] = 2;
    assertEquals(Outcome.BAD_MAC, verify(forged));
  }

  @Test
  void sessionsLeaveTheCacheAtSetAndTheirKeysAreWiped() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    assertEquals(Outcome.ACCEPTED, verify(s.seal(new byte[1])));
    Session session = last.session();
    assertEquals(1, keys.sessionCount());
    clock.advanceSeconds(100); // SET, still inside skew
    assertEquals(1, keys.sessionCount());
    clock.advanceSeconds(6 + 1);
    assertEquals(0, keys.sessionCount());
    assertTrue(session.mac().isDestroyed(), "key wiped on removal");
  }

  @Test
  void encryptedPayloadsDecryptAfterVerification() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, true);
    byte[] text = "secret instructions".getBytes(StandardCharsets.US_ASCII);
    byte[] p = s.seal(text);
    int off = ActivePacket.HEADER_V4;
    assertNotEquals(
        new String(text, StandardCharsets.US_ASCII),
        new String(p, off, text.length, StandardCharsets.US_ASCII));
    assertEquals(Outcome.ACCEPTED, verify(p));
    ByteBuffer out = ByteBuffer.allocate(text.length);
    assertTrue(verifier.decrypt(out));
    assertArrayEquals(text, out.array());
  }

  @Test
  void malformedPacketsSayWhatAndWhere() {
    byte[] p = sealer(MacAlgorithm.HMAC_SHA256_128, false).seal(new byte[3]);
    byte[] t = p.clone();
    t[ActivePacket.OFF_PAYLOAD_LENGTH + 3]++;
    assertEquals(Outcome.MALFORMED, verify(t));
    assertEquals(
        "LENGTH_MISMATCH at byte 12: payload length disagrees with the datagram's length",
        last.malformation().toString());
    assertEquals(Outcome.MALFORMED, verify(new byte[10]));
    assertEquals(2, counters.get(Outcome.MALFORMED));
  }

  /** Starts over with a session cache of {@code sessions} and room for {@code marks} marks. */
  private void small(long sessions, long marks) {
    keys.close();
    keys =
        new FlowKeys(
            Fixtures.registry(),
            secrets,
            clock,
            5,
            new FlowKeys.Settings(sessions, 16, Duration.ofHours(1), Duration.ofSeconds(5), marks));
    verifier = new Verifier(keys);
  }

  private Flow flowOf(long user) {
    return new Flow(user, flow.sst(), flow.set(), flow.source(), flow.destination(), CODE);
  }

  /**
   * Forged packets (real Ci and epoch, random U, bad tags) must not take a place in the session
   * cache: before the fix, enough of them evicted a legitimate flow, whose replay window then
   * started over and accepted an already-delivered packet again.
   */
  @Test
  void forgedFlowsLeaveNoStateAndCannotEvictAReplayWindow() {
    small(4, 16);
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] first = s.seal(new byte[] {1});
    assertEquals(Outcome.ACCEPTED, verify(first));
    assertEquals(Outcome.ACCEPTED, verify(s.seal(new byte[] {2})));
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 200; i++) {
      byte[] forged =
          Fixtures.sealer(flowOf(1000 + i), 1, KCI, MacAlgorithm.HMAC_SHA256_128, false)
              .seal(new byte[] {3});
      forged[forged.length - 1] ^= (byte) (1 + random.nextInt(255)); // a bad tag
      assertEquals(Outcome.BAD_MAC, verify(forged));
    }
    assertEquals(1, keys.sessionCount(), "only the authenticated flow is cached");
    assertEquals(Outcome.REPLAY, verify(first));
    assertEquals(0, keys.highWaterMarks());
  }

  /**
   * Authenticated flows can still fill the cache and evict each other; an evicted flow comes back
   * with a window above what it had seen, never a fresh one.
   */
  @Test
  void anEvictedFlowKeepsItsHighWaterMark() {
    small(2, 8);
    List<PacketSealer> sealers = new ArrayList<>();
    List<byte[]> delivered = new ArrayList<>();
    for (int i = 0; i < 6; i++) { // five evictions at least: below the cap of 4 x 2 marks
      PacketSealer other =
          Fixtures.sealer(flowOf(2000 + i), 1, KCI, MacAlgorithm.HMAC_SHA256_128, false);
      byte[] p = other.seal(new byte[] {4});
      assertEquals(Outcome.ACCEPTED, verify(p));
      sealers.add(other);
      delivered.add(p);
    }
    assertTrue(keys.highWaterMarks() >= 4, "evicted flows left their marks");
    for (int i = 0; i < sealers.size(); i++) {
      assertEquals(Outcome.REPLAY, verify(delivered.get(i)), "flow " + i + ": seen before");
      assertEquals(Outcome.ACCEPTED, verify(sealers.get(i).seal(new byte[] {5})), "goes on");
      sealers.get(i).destroy();
    }
    // Marks live until SET (plus skew), then go.
    clock.advanceSeconds(100 + 5 + 1);
    keys.expire();
    assertEquals(0, keys.highWaterMarks());
  }

  /** A flow that left the cache keeps everything at or below its mark closed, late ones too. */
  @Test
  void invalidatingSessionsKeepsReplayState() {
    PacketSealer s = sealer(MacAlgorithm.HMAC_SHA256_128, false);
    byte[] p1 = s.seal(new byte[] {1});
    byte[] p2 = s.seal(new byte[] {2});
    byte[] p3 = s.seal(new byte[] {3});
    assertEquals(Outcome.ACCEPTED, verify(p1));
    assertEquals(Outcome.ACCEPTED, verify(p3)); // p2 is late, still unseen
    keys.invalidateSessions();
    assertEquals(1, keys.highWaterMarks());
    assertEquals(Outcome.REPLAY, verify(p1));
    assertEquals(Outcome.REPLAY, verify(p2), "at or below the mark: refused, never reopened");
    keys.clear();
    assertEquals(Outcome.REPLAY, verify(p3));
    assertEquals(Outcome.ACCEPTED, verify(s.seal(new byte[] {4})));
    assertEquals(0, keys.highWaterMarks(), "the cached window carries the mark again");
  }

  /**
   * More flows than the verifier has slots, interleaved, for longer than a slot goes between
   * looking in the shared cache: every packet verifies, each flow's key is derived once, and a
   * replay is refused whether its flow is in a slot or not.
   */
  @Test
  void flowsBeyondTheVerifiersSlotsShareThemAndDeriveOnce() {
    int n = Verifier.SLOTS * 2 + 1;
    List<PacketSealer> sealers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sealers.add(Fixtures.sealer(flowOf(5000 + i), 1, KCI, MacAlgorithm.HMAC_SHA256_128, false));
    }
    List<byte[]> delivered = new ArrayList<>();
    for (int round = 0; round < Verifier.TOUCH_EVERY / 16; round++) {
      for (PacketSealer s : sealers) {
        byte[] p = s.seal(new byte[] {6});
        assertEquals(Outcome.ACCEPTED, verify(p));
        delivered.add(p);
      }
    }
    assertEquals(n, keys.derivations(), "one derivation per flow");
    for (byte[] p : delivered.subList(delivered.size() - n, delivered.size())) {
      assertEquals(Outcome.REPLAY, verify(p));
    }
    sealers.forEach(PacketSealer::destroy);
  }

  /** When no more replay state can be kept, new flows are refused: it never fails open. */
  @Test
  void whenNoMoreMarksFitNewFlowsAreRefused() {
    small(1, 1);
    assertEquals(
        Outcome.ACCEPTED, verify(sealer(MacAlgorithm.HMAC_SHA256_128, false).seal(new byte[1])));
    PacketSealer second = Fixtures.sealer(flowOf(99), 1, KCI, MacAlgorithm.HMAC_SHA256_128, false);
    assertEquals(Outcome.ACCEPTED, verify(second.seal(new byte[1]))); // evicts the first: 1 mark
    PacketSealer third = Fixtures.sealer(flowOf(98), 1, KCI, MacAlgorithm.HMAC_SHA256_128, false);
    assertEquals(Outcome.OVERLOADED, verify(third.seal(new byte[1])));
    assertEquals(1, counters.get(Outcome.OVERLOADED));
  }
}
