package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark once, in-process, for a few milliseconds: proves they set up and run. The
 * figures mean nothing; real runs use {@code java -jar bench/target/benchmarks.jar}.
 */
class BenchmarkSmokeTest {
  @Test
  void everyBenchmarkRuns() throws Exception {
    Options o =
        new OptionsBuilder()
            .include(CopsCodecBenchmark.class.getSimpleName())
            .include(TlsHandshakeBenchmark.class.getSimpleName())
            .include(PolicyEngineBenchmark.class.getSimpleName())
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(20))
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(o).run();
    assertFalse(results.isEmpty());
    for (RunResult r : results) {
      assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().toString());
    }
  }

  @Test
  void theProviderBenchmarksRunOnTheJdkAndTheNativeProvider() throws Exception {
    smoke(
        HmacProviderBenchmark.class.getSimpleName(),
        3,
        "SunJCE",
        "PortcullisNative",
        "PortcullisNative-fast");
    smoke(AesProviderBenchmark.class.getSimpleName(), 2, "SunJCE", "PortcullisNative");
  }

  @Test
  void initialisationAndFirstUseRun() throws Exception {
    Options o =
        new OptionsBuilder()
            .include(ProviderInitBenchmark.class.getSimpleName())
            .include(FirstUseBenchmark.class.getSimpleName())
            .param("provider", "SunJCE")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(20))
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(o).run();
    assertTrue(results.size() == 4, results.toString()); // 2 algorithms; prewarm on and off
    for (RunResult r : results) {
      assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().toString());
    }
  }

  private static void smoke(String benchmark, int expected, String... providers) throws Exception {
    Options o =
        new OptionsBuilder()
            .include(benchmark)
            .param("provider", providers)
            .param("algorithm", "HmacSHA256")
            .param("size", "64")
            .param("buffer", "direct")
            .param("transformation", "AES/CTR/NoPadding")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(20))
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(o).run();
    assertTrue(results.size() == expected, benchmark + ": " + results);
    for (RunResult r : results) {
      assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().toString());
    }
  }
}
