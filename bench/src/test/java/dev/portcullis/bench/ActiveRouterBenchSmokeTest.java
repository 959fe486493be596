package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.bench.jmh.ActiveVerifyBenchmark;
import java.nio.file.Path;
import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** The active router's benchmarks run, in a tiny configuration (figures: docs/active-router.md). */
class ActiveRouterBenchSmokeTest {
  @Test
  void theVerifierBenchmarkRunsEveryMethod() throws Exception {
    Collection<RunResult> results =
        Smoke.run(
            new OptionsBuilder()
                .include(ActiveVerifyBenchmark.class.getSimpleName())
                .param("provider", "SunJCE")
                .param("size", "256")
                .param("flows", "64"));
    assertEquals(3, results.size(), results.toString());
  }

  @Test
  @Timeout(120)
  void theThroughputHarnessMeasuresBothModes() throws Exception {
    RouterThroughput t = new RouterThroughput();
    t.packets = 300;
    t.size = 256;
    t.trials = 1;
    t.warmup = 0;
    t.crypto.file = Path.of("..", "config", "crypto-providers.xml");
    RouterThroughput.Result r = t.run();
    assertTrue(r.verifyingPps()[0] > 0 && r.plainPps()[0] > 0, "both modes forwarded packets");
  }
}
