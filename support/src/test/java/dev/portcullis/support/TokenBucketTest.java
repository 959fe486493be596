package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long MS = 1_000_000L;

  @Test
  void startsFullAndRefillsAtTheRate() {
    TokenBucket b = new TokenBucket(1000, 3, 0); // one token a millisecond, burst 3
    assertTrue(b.tryTake(0));
    assertTrue(b.tryTake(0));
    assertTrue(b.tryTake(0));
    assertFalse(b.tryTake(0));
    assertEquals(MS, b.nanosUntilToken(0));
    assertFalse(b.tryTake(MS / 2));
    assertEquals(MS / 2, b.nanosUntilToken(MS / 2));
    assertTrue(b.tryTake(MS));
    assertFalse(b.tryTake(MS));
  }

  @Test
  void savesNoMoreThanItsCapacity() {
    TokenBucket b = new TokenBucket(1000, 2, 0);
    long later = 10_000 * MS;
    assertTrue(b.tryTake(later));
    assertTrue(b.tryTake(later));
    assertFalse(b.tryTake(later));
  }

  @Test
  void aClockRunningBackwardsTakesNothingAway() {
    TokenBucket b = new TokenBucket(1000, 2, 5 * MS);
    assertTrue(b.tryTake(5 * MS));
    assertTrue(b.tryTake(MS)); // earlier than the last reading: no refill, but no debt either
    assertFalse(b.tryTake(MS));
    assertTrue(b.tryTake(6 * MS));
  }

  @Test
  void refusesNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, 0.5, 0));
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(Double.NaN, 1, 0));
  }
}
