package dev.portcullis.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.bench.Smoke;
import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs every benchmark once, in-process, for a few milliseconds: proves they set up and run. The
 * figures mean nothing; real runs use {@code java -jar bench/target/benchmarks.jar}.
 */
class BenchmarkSmokeTest {
  @Test
  void everyBenchmarkRuns() throws Exception {
    Collection<RunResult> results =
        Smoke.run(
            new OptionsBuilder()
                .include(CopsCodecBenchmark.class.getSimpleName())
                .include(AccessRequestBenchmark.class.getSimpleName())
                .include(TlsHandshakeBenchmark.class.getSimpleName())
                .include(PolicyEngineBenchmark.class.getSimpleName())
                .include(DecisionAccountingBenchmark.class.getSimpleName()));
    assertFalse(results.isEmpty());
    assertTrue(
        results.stream().anyMatch(r -> r.getParams().getBenchmark().endsWith("countersAndTimer")),
        "the decision accounting benchmark ran");
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
    Collection<RunResult> results =
        Smoke.run(
            new OptionsBuilder()
                .include(ProviderInitBenchmark.class.getSimpleName())
                .include(FirstUseBenchmark.class.getSimpleName())
                .param("provider", "SunJCE"));
    assertTrue(results.size() == 4, results.toString()); // 2 algorithms; prewarm on and off
  }

  private static void smoke(String benchmark, int expected, String... providers) throws Exception {
    Collection<RunResult> results =
        Smoke.run(
            new OptionsBuilder()
                .include(benchmark)
                .param("provider", providers)
                .param("algorithm", "HmacSHA256")
                .param("size", "64")
                .param("buffer", "direct")
                .param("transformation", "AES/CTR/NoPadding"));
    assertTrue(results.size() == expected, benchmark + ": " + results);
  }
}
