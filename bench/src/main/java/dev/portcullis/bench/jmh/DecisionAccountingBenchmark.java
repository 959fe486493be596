package dev.portcullis.bench.jmh;

import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.support.Quantiles;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the PDP's bookkeeping costs per decision on its event loop (issue 32: "metric timers on the
 * hot path"), as {@code PdpStats.decision} does it: two counters and the latency histogram always
 * ({@code counters}), and with a metrics endpoint open also the Prometheus timer with the
 * endpoint's latency buckets ({@code countersAndTimer}). Against a decision's CPU (about 3 µs on
 * the plateau, docs/benchmarks.md) the difference is what a metrics endpoint costs the hot path.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
@State(Scope.Thread)
public class DecisionAccountingBenchmark {
  private final LongAdder decisions = new LongAdder();
  private final LongAdder installed = new LongAdder();
  private final ConcurrentHistogram latency = new ConcurrentHistogram(Quantiles.DIGITS);
  private Timer timer;
  private final long[] nanos = new long[1024];
  private int i;

  @Setup
  public void setUp() {
    timer =
        Timer.builder("portcullis.pdp.decision")
            .serviceLevelObjectives(MetricsEndpoint.LATENCY_BUCKETS.toArray(Duration[]::new))
            .register(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    for (int k = 0; k < nanos.length; k++) {
      nanos[k] = 1_000 + (k * 7_919L) % 200_000; // 1 to 201 µs, spread over the buckets
    }
  }

  private long next() {
    i = (i + 1) & (nanos.length - 1);
    return nanos[i];
  }

  @Benchmark
  public void counters() {
    long n = next();
    decisions.increment();
    latency.recordValue(n);
    installed.increment();
  }

  @Benchmark
  public void countersAndTimer() {
    long n = next();
    decisions.increment();
    latency.recordValue(n);
    installed.increment();
    timer.record(n, TimeUnit.NANOSECONDS);
  }
}
