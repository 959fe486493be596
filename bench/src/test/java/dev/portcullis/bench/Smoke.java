package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** The tiny JMH configuration the smoke tests run benchmarks in: in-process, one 20 ms shot. */
public final class Smoke {
  private Smoke() {}

  /** Runs what {@code b} selects; every result must have a positive score. */
  public static Collection<RunResult> run(ChainedOptionsBuilder b) throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                b.forks(0)
                    .warmupIterations(0)
                    .measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(20))
                    .shouldFailOnError(true)
                    // in-process, so JMH warns about non-forked runs: right for a measurement,
                    // noise for a smoke test that only proves the benchmark runs
                    .verbosity(VerboseMode.SILENT)
                    .build())
            .run();
    for (RunResult r : results) {
      assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().toString());
    }
    return results;
  }
}
