package dev.portcullis.active.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.ManualClock;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Packets that claim random epochs or codes: "one fetch per (Ci, epoch)" was defeated by varying
 * the epoch (20,000 packets, ~17,000 fetches, a WARN line each, and a legitimate flow starved). Now
 * only announced epochs of codes this router runs are fetched, requests are bounded, and the log
 * holds a summary.
 */
@Timeout(30)
class MissStormTest {
  private static final long T0 = 1_800_000_000L;
  private static final int CODE = 42;
  private static final int EPOCH = (int) (T0 - 600); // made ten minutes ago, as an AS numbers them
  private static final byte[] KCI = new byte[32];

  private final ManualClock clock = new ManualClock(T0);
  private final AtomicInteger listRequests = new AtomicInteger();
  private final AtomicInteger secretRequests = new AtomicInteger();

  /** A Code Server for one router that may run code 42, which has one epoch. */
  private final CodeSource source =
      new CodeSource() {
        @Override
        public CompletableFuture<byte[]> secret(int code, int epoch) {
          secretRequests.incrementAndGet();
          return code == CODE && epoch == EPOCH
              ? CompletableFuture.completedFuture(KCI.clone())
              : CompletableFuture.failedFuture(new UnknownCodeException("no such epoch"));
        }

        @Override
        public CompletableFuture<int[]> epochs(int code) {
          listRequests.incrementAndGet();
          return CompletableFuture.completedFuture(new int[] {EPOCH});
        }

        @Override
        public boolean knows(int code) {
          return code == CODE;
        }
      };

  private final FlowKeys keys =
      new FlowKeys(Fixtures.registry(), source, clock, 5, FlowKeys.Settings.DEFAULT);
  private final Verifier verifier = new Verifier(keys);

  @AfterEach
  void close() {
    keys.close();
  }

  private Outcome verify(byte[] p) throws Exception {
    Verification v = verifier.verify(ByteBuffer.wrap(p), 0, p.length);
    if (v.outcome() == Outcome.PENDING) {
      v.pending().get(5, TimeUnit.SECONDS);
      v = verifier.verify(ByteBuffer.wrap(p), 0, p.length);
    }
    return v.outcome();
  }

  @Test
  void randomEpochsAndCodesCauseAlmostNoRequestsAndALegitimateFlowPasses() throws Exception {
    try (LogLines log = LogLines.of(FlowKeys.class)) {
      Flow flow =
          new Flow(
              7, T0 - 10, T0 + 100, Fixtures.ip("192.0.2.1"), Fixtures.ip("198.51.100.9"), CODE);
      PacketSealer sealer = Fixtures.sealer(flow, EPOCH, KCI, MacAlgorithm.HMAC_SHA256_128, false);
      byte[] template = sealer.seal(new byte[8]);
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; i < 20_000; i++) {
        byte[] p = template.clone();
        ByteBuffer.wrap(p).putInt(ActivePacket.OFF_EPOCH, random.nextInt());
        if (i % 4 == 0) {
          ByteBuffer.wrap(p).putInt(ActivePacket.OFF_CODE, random.nextInt());
        }
        Outcome o = verifier.verify(ByteBuffer.wrap(p), 0, p.length).outcome();
        assertTrue(o != Outcome.ACCEPTED, "packet " + i);
      }
      // Epochs near the clock but unannounced, as a cleverer storm would send them.
      for (int i = 0; i < 2_000; i++) {
        byte[] p = template.clone();
        ByteBuffer.wrap(p)
            .putInt(ActivePacket.OFF_EPOCH, (int) (T0 - 3_000 + random.nextInt(3_060)));
        verifier.verify(ByteBuffer.wrap(p), 0, p.length);
      }
      assertTrue(listRequests.get() <= 3, "epoch lists asked for: " + listRequests.get());
      assertTrue(secretRequests.get() <= 1, "secrets asked for: " + secretRequests.get());
      // A legitimate new flow is served at once: all ten packets delivered.
      for (int i = 0; i < 10; i++) {
        assertEquals(Outcome.ACCEPTED, verify(sealer.seal(new byte[] {(byte) i})), "packet " + i);
      }
      assertTrue(log.lines().size() <= 5, "log lines: " + log.lines());
    }
  }
}
