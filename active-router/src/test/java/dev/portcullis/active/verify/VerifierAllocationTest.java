package dev.portcullis.active.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.Fixtures.SecretMap;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.support.ManualClock;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A packet whose session is cached costs the verifier no allocation, whether consecutive packets
 * are of one flow or of 64 flows in turn (each lookup then goes through the verifier's slots and,
 * one packet in {@value Verifier#TOUCH_EVERY}, the shared cache). Counted by the JVM for this
 * thread, so the figure is the path's own, with no benchmark harness in it. Measured in rounds
 * after a warm-up: the path is allocation-free once compiled, and a busy machine may not have
 * compiled it after the first round (the interpreter allocates a few hundred bytes in all), so one
 * round of the five must allocate nothing; a path that allocates per packet allocates in every one.
 */
class VerifierAllocationTest {
  private static final long T0 = 1_800_000_000L;
  private static final int CODE = 42;
  private static final int WARM_UP = 10_000;
  private static final int ROUND = 10_000;
  private static final int PACKETS = WARM_UP + 5 * ROUND;

  @ParameterizedTest(name = "{0} flows")
  @ValueSource(ints = {1, 64})
  void aPacketWhoseSessionIsCachedAllocatesNothing(int flows) throws Exception {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(mx.isThreadAllocatedMemorySupported(), "this JVM does not count allocation");
    mx.setThreadAllocatedMemoryEnabled(true);

    byte[] kci = new byte[32];
    Arrays.fill(kci, (byte) 5);
    ManualClock clock = new ManualClock(T0);
    PacketSealer[] sealers = new PacketSealer[flows];
    for (int f = 0; f < flows; f++) {
      Flow flow =
          new Flow(
              100 + f,
              T0 - 10,
              T0 + 3600,
              Fixtures.ip("192.0.2.1"),
              Fixtures.ip("198.51.100.9"),
              CODE);
      sealers[f] = Fixtures.sealer(flow, 1, kci, MacAlgorithm.HMAC_SHA256_128, false);
    }
    ByteBuffer[] packets = new ByteBuffer[PACKETS];
    for (int i = 0; i < PACKETS; i++) {
      byte[] p = sealers[i % flows].seal(new byte[0]); // 72 bytes: the smallest packet
      packets[i] = ByteBuffer.allocateDirect(p.length).put(p).flip();
    }
    for (PacketSealer s : sealers) {
      s.destroy();
    }

    try (FlowKeys keys =
        new FlowKeys(
            Fixtures.registry(),
            new SecretMap().put(CODE, 1, kci),
            clock,
            5,
            FlowKeys.Settings.DEFAULT)) {
      Verifier verifier = new Verifier(keys);
      long now = clock.millis();
      // The warm-up caches every flow's session and lets the JIT compile the path.
      for (int i = 0; i < WARM_UP; i++) {
        assertEquals(Outcome.ACCEPTED, verifier.verify(now, packets[i], 0, 72).outcome(), "#" + i);
      }
      long idle = -mx.getCurrentThreadAllocatedBytes() + mx.getCurrentThreadAllocatedBytes();
      long[] rounds = new long[(PACKETS - WARM_UP) / ROUND];
      int accepted = 0;
      for (int r = 0; r < rounds.length; r++) {
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = WARM_UP + r * ROUND; i < WARM_UP + (r + 1) * ROUND; i++) {
          if (verifier.verify(now, packets[i], 0, 72).outcome() == Outcome.ACCEPTED) {
            accepted++;
          }
        }
        rounds[r] = mx.getCurrentThreadAllocatedBytes() - before - idle;
      }
      assertEquals(PACKETS - WARM_UP, accepted, "every packet verified");
      assertEquals(
          0,
          Arrays.stream(rounds).min().orElseThrow(),
          "bytes allocated in each round of " + ROUND + " packets: " + Arrays.toString(rounds));
    }
  }
}
