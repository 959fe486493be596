package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  static double[] noisy(long seed, int n, double centre, double spread) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = centre * (1 + spread * (r.nextDouble() - 0.5)) + (i % 17 == 0 ? centre * 3 : 0);
    }
    return v;
  }

  @Test
  void theMediansIntervalHoldsTheMedianIsReproducibleAndNarrowsWithMoreTrials() {
    double[] few = noisy(1, 20, 100, 0.5);
    double[] many = noisy(1, 400, 100, 0.5);
    Stats a = Stats.of(few);
    assertTrue(a.medianLow() <= a.median() && a.median() <= a.medianHigh(), a.toString());
    assertEquals(a, Stats.of(few), "the same trials give the same interval");
    Stats b = Stats.of(many);
    assertTrue(
        b.medianHigh() - b.medianLow() < a.medianHigh() - a.medianLow(),
        "400 trials pin the median down better than 20");
    assertTrue(b.medianLow() > 90 && b.medianHigh() < 110, b.toString());
  }

  @Test
  void aCellWhoseIntervalIsWiderThanTenPercentEachWayIsFlagged() {
    assertFalse(Stats.of(noisy(2, 100, 100, 0.1)).wide());
    assertTrue(Stats.of(noisy(3, 8, 100, 3.0)).wide());
  }

  @Test
  void aDifferenceIsSignificantOnlyWhenItsIntervalLeavesOutZero() {
    Cell base = new Cell("plain", Metric.RR, noisy(4, 100, 100, 0.4));
    Cell same = new Cell("other", Metric.RR, noisy(5, 100, 100, 0.4));
    Cell slower = new Cell("tls", Metric.RR, noisy(6, 100, 130, 0.4));
    Comparison none = Comparison.of(base, same);
    assertFalse(none.significant(), none.toString());
    assertTrue(none.low() < 0 && none.high() > 0);
    Comparison cost = Comparison.of(base, slower);
    assertTrue(cost.significant(), cost.toString());
    assertTrue(cost.low() > 10 && cost.high() < 50 && cost.percent() > 20, cost.toString());
    Cell fewer = new Cell("tls", Metric.STREAM, noisy(7, 100, 70, 0.2));
    Comparison rate =
        Comparison.of(new Cell("plain", Metric.STREAM, noisy(8, 100, 100, 0.2)), fewer);
    assertTrue(rate.significant() && rate.percent() > 30, "a lower rate is a cost: " + rate);
  }
}
