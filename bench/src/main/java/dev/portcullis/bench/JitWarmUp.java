package dev.portcullis.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Warm-up that ends when the JIT has finished, not after a fixed count. On this 2-core VM the C2
 * compiler thread ran at a full core for the first 12 seconds of a {@code PcmmLoad} run (11 s of
 * its CPU, read from /proc while the round trips ran), so a round measured in that time shared its
 * cores with the compiler and its ratio said more about the JIT than about the code measured.
 */
final class JitWarmUp {
  /** One pass of the work to be measured later. */
  interface Pass {
    void run() throws Exception;
  }

  /** What a warm-up took. */
  record Result(int passes, long millis, long compileMillis, boolean quiet) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "warm-up: %d passes in %.1f s, the JIT compiling %.1f s of it; %s",
          passes,
          millis / 1e3,
          compileMillis / 1e3,
          quiet ? "quiet after it" : "still compiling at the limit, measured anyway");
    }
  }

  private JitWarmUp() {}

  /**
   * Runs {@code pass} until one whole pass grows the JIT's compile time (all compiler threads) by
   * less than 2 % of the pass's own time, at least {@code minPasses} times and for at most {@code
   * limitMillis}.
   */
  static Result run(Pass pass, int minPasses, long limitMillis) throws Exception {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
    long start = System.nanoTime();
    long compileStart = timed ? jit.getTotalCompilationTime() : 0;
    int passes = 0;
    boolean quiet = false;
    while (true) {
      long before = timed ? jit.getTotalCompilationTime() : 0;
      long passStart = System.nanoTime();
      pass.run();
      passes++;
      long grew = timed ? jit.getTotalCompilationTime() - before : 0;
      long passMillis = (System.nanoTime() - passStart) / 1_000_000;
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      if (passes >= minPasses && (!timed || grew * 50 < passMillis)) {
        quiet = timed;
        break;
      }
      if (elapsed >= limitMillis) {
        break;
      }
    }
    return new Result(
        passes,
        (System.nanoTime() - start) / 1_000_000,
        timed ? jit.getTotalCompilationTime() - compileStart : 0,
        quiet);
  }
}
