package dev.portcullis.active.verify;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.Fixtures.SecretMap;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.support.ManualClock;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Whatever arrives, the verifier answers with a counted drop and never throws. */
class VerifierPropertyTest {
  private static final long T0 = 1_800_000_000L;
  private static final byte[] KCI = new byte[32];
  private static final ManualClock CLOCK = new ManualClock(T0);
  private static final FlowKeys KEYS =
      new FlowKeys(
          Fixtures.registry(), new SecretMap().put(5, 1, KCI), CLOCK, 5, FlowKeys.Settings.DEFAULT);
  private static final Verifier VERIFIER = new Verifier(KEYS, EnumSet.allOf(MacAlgorithm.class));
  private static final byte[] VALID =
      Fixtures.sealer(
              new Flow(1, T0 - 5, T0 + 500, Fixtures.ip("10.1.1.1"), Fixtures.ip("10.2.2.2"), 5),
              1,
              KCI,
              MacAlgorithm.HMAC_SHA256_128,
              true)
          .seal(new byte[40]);

  private static void assertCountedDrop(byte[] bytes) {
    Outcome o = VERIFIER.verify(ByteBuffer.wrap(bytes), 0, bytes.length).outcome();
    if (o == Outcome.PENDING) {
      return; // a code this router has not asked for yet: parked, not dropped
    }
    assertTrue(o.isDrop(), o.toString());
  }

  @Property(tries = 2000)
  void anyBytes(@ForAll @Size(max = 300) byte[] bytes) {
    assertCountedDrop(bytes);
  }

  /** A valid packet with a few bytes overwritten: gets past the structure checks far more often. */
  @Property(tries = 3000)
  void aValidPacketWithBytesOverwritten(
      @ForAll @Size(min = 1, max = 4) List<@IntRange(min = 0, max = 135) Integer> positions,
      @ForAll @Size(min = 4, max = 4) byte[] values) {
    byte[] t = VALID.clone();
    for (int i = 0; i < positions.size(); i++) {
      t[positions.get(i) % t.length] = values[i];
    }
    // Compared at the end: a later write to the same position can restore the original byte.
    if (!Arrays.equals(t, VALID)) {
      assertCountedDrop(t);
    }
  }

  @Property(tries = 500)
  void truncatedOrExtended(@ForAll @IntRange(min = 0, max = 200) int length) {
    byte[] t = Arrays.copyOf(VALID, length);
    if (length != VALID.length) {
      assertCountedDrop(t);
    }
  }
}
