package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Issue 47: {@code benchmarks.jar --bogus} exited 1 with JMH's two-line message. */
class BenchmarksMainTest {
  @Test
  void anUnknownOptionIsOneLine() {
    assertEquals(
        "benchmarks.jar: bogus is not a recognized option; see java -jar benchmarks.jar --help",
        BenchmarksMain.usageMistake(new String[] {"--bogus"}));
  }

  @Test
  void whatJmhTakesIsNoMistake() {
    assertNull(BenchmarksMain.usageMistake(new String[] {"-l", "CopsCodecBenchmark"}));
  }
}
