package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class QuantilesTest {
  @Test
  void nearestRankExactForSmallValues() {
    long[] v = {5, 1, 4, 2, 3};
    assertEquals(1, Quantiles.at(v, 0));
    assertEquals(3, Quantiles.at(v, 0.5));
    assertEquals(5, Quantiles.at(v, 0.99));
    assertEquals(5, Quantiles.at(v, 1));
    assertEquals(0, Quantiles.at(new long[0], 0.5));
  }

  @Test
  void largeValuesWithinATenthOfAPercent() {
    long[] v = new long[1000];
    for (int i = 0; i < v.length; i++) {
      v[i] = 1_000_000L + i * 1000L; // 1 ms to about 2 ms
    }
    long p99 = Quantiles.at(v, 0.99);
    long exact = v[989];
    assertTrue(Math.abs(p99 - exact) <= exact / 1000, p99 + " vs " + exact);
  }

  @Test
  void refusesQuantilesOutsideZeroToOne() {
    assertThrows(IllegalArgumentException.class, () -> Quantiles.at(new long[] {1}, 1.5));
  }
}
