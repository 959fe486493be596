package dev.portcullis.active.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class ReplayWindowTest {
  @Test
  void acceptsEachNumberOnceAndNothingTooOld() {
    ReplayWindow w = new ReplayWindow(4); // 192 numbers of reordering
    assertEquals(192, w.size());
    assertFalse(w.accept(0), "zero");
    assertTrue(w.accept(1));
    assertFalse(w.accept(1), "replay");
    assertTrue(w.accept(5));
    assertTrue(w.accept(3), "late but inside");
    assertTrue(w.accept(1000));
    assertFalse(w.mayAccept(1000 - 192), "just outside");
    assertTrue(w.mayAccept(1000 - 191), "just inside");
    assertTrue(w.accept(1000 - 191));
    assertFalse(w.accept(1000 - 191));
    assertFalse(w.accept(5), "old");
    assertEquals(1000, w.highest());
  }

  @Test
  void aJumpBeyondTheWholeRingClearsIt() {
    ReplayWindow w = new ReplayWindow(2);
    for (long s = 1; s <= 64; s++) {
      assertTrue(w.accept(s));
    }
    assertTrue(w.accept(1_000_000));
    assertTrue(w.accept(1_000_000 - 63), "the bit left over from before the jump is cleared");
  }

  @Test
  void blocksMustBeAPowerOfTwo() {
    assertThrows(IllegalArgumentException.class, () -> new ReplayWindow(3));
    assertThrows(IllegalArgumentException.class, () -> new ReplayWindow(1));
  }

  /** Against the definition: accepted iff new, non-zero, and within size of the highest. */
  @Property(tries = 300)
  void agreesWithTheDefinition(
      @ForAll @Size(max = 400) List<@LongRange(min = 0, max = 700) Long> seqs) {
    ReplayWindow w = new ReplayWindow(4);
    Set<Long> seen = new HashSet<>();
    long highest = 0;
    for (long s : seqs) {
      boolean expected = s != 0 && !seen.contains(s) && (s > highest || highest - s < w.size());
      assertEquals(expected, w.mayAccept(s), "mayAccept " + s);
      assertEquals(expected, w.accept(s), "accept " + s);
      if (expected) {
        seen.add(s);
        highest = Math.max(highest, s);
      }
    }
  }

  /** A window re-opened above a high-water mark: nothing at or below it, everything above it. */
  @Property(tries = 300)
  void aboveAHighWaterMarkAgreesWithTheDefinition(
      @ForAll @LongRange(min = 0, max = 500) long highWater,
      @ForAll @Size(max = 200) List<@LongRange(min = 0, max = 900) Long> seqs) {
    ReplayWindow w = ReplayWindow.above(highWater);
    assertEquals(highWater, w.highest());
    Set<Long> seen = new HashSet<>();
    long highest = highWater;
    for (long s : seqs) {
      boolean expected =
          s > highWater && !seen.contains(s) && (s > highest || highest - s < w.size());
      assertEquals(expected, w.mayAccept(s), "mayAccept " + s + " above " + highWater);
      assertEquals(expected, w.accept(s), "accept " + s + " above " + highWater);
      if (expected) {
        seen.add(s);
        highest = Math.max(highest, s);
      }
    }
  }

  @Test
  void aClosedWindowAcceptsNothingAndReportsItsHighest() {
    ReplayWindow w = new ReplayWindow();
    assertTrue(w.accept(7));
    assertEquals(7, w.close());
    assertFalse(w.mayAccept(8));
    assertFalse(w.accept(8));
  }
}
