package dev.portcullis.bench.jmh;

import dev.portcullis.support.TokenBucket;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * One token taken on the PDP's read path, side by side: support's {@link TokenBucket} (what the
 * PDP's {@code ReadRateLimiter} and the router's rate-limiter service use) against Bucket4j's local
 * bucket, both refilled fast enough never to run dry, both reading {@code System.nanoTime}.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar org.openjdk.jmh.Main TokenBucketBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class TokenBucketBenchmark {
  private static final long RATE = 1_000_000_000L; // a token a nanosecond: never empty
  private TokenBucket ours;
  private Bucket bucket4j;

  @Setup
  public void setUp() {
    ours = new TokenBucket(RATE, RATE, System.nanoTime());
    bucket4j =
        Bucket.builder()
            .addLimit(
                Bandwidth.builder()
                    .capacity(RATE)
                    .refillGreedy(RATE, Duration.ofSeconds(1))
                    .build())
            .withNanosecondPrecision()
            .build();
  }

  @Benchmark
  public boolean supportTokenBucket() {
    return ours.tryTake(System.nanoTime());
  }

  @Benchmark
  public boolean bucket4jLocal() {
    return bucket4j.tryConsume(1);
  }
}
