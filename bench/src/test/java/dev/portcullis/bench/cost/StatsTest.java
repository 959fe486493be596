package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StatsTest {
  @Test
  void quantilesInterpolateBetweenClosestRanksAsRAndNumpyDo() {
    // R: quantile(c(1, 2, 3, 4, 10), c(.1, .25, .5, .75, .9)) = 1.4 2 3 4 7.6
    Stats s = Stats.of(new double[] {10, 1, 3, 2, 4});
    assertEquals(1.4, s.p10(), 1e-12);
    assertEquals(2, s.q1(), 1e-12);
    assertEquals(3, s.median(), 1e-12);
    assertEquals(4, s.q3(), 1e-12);
    assertEquals(7.6, s.p90(), 1e-12);
    assertEquals(4, s.mean(), 1e-12);
    assertEquals(1, s.min());
    assertEquals(10, s.max());
    assertEquals(2.5, Stats.of(new double[] {1, 2, 3, 4}).median(), 1e-12);
    assertEquals(7, Stats.of(new double[] {7}).p90());
    assertThrows(IllegalArgumentException.class, () -> Stats.of(new double[0]));
  }

  @Test
  void whiskersStopAtOneAndAHalfInterquartileRanges() {
    double[] v = {1, 2, 3, 4, 10};
    Stats s = Stats.of(v); // IQR 2: fences -1 and 7
    assertEquals(1, s.lowerWhisker(v));
    assertEquals(4, s.upperWhisker(v), "10 is beyond the fence: an outlier dot");
  }

  @Test
  void overheadIsAlwaysACostWhenPositive() {
    assertEquals(25, Stats.overheadPercent(200, 250, false), 1e-9, "time 200 -> 250 us");
    assertEquals(-10, Stats.overheadPercent(200, 180, false), 1e-9);
    assertEquals(100, Stats.overheadPercent(20_000, 10_000, true), 1e-9, "rate halved");
    assertEquals(-50, Stats.overheadPercent(10_000, 20_000, true), 1e-9);
  }

  @Test
  void trialsSpreadOverRoundsAddUp() {
    int sum = 0;
    for (int r = 0; r < 7; r++) {
      sum += CostOfSecurity.share(100, 7, r);
    }
    assertEquals(100, sum);
  }
}
