package dev.portcullis.bench;

import dev.portcullis.support.Programs;
import java.util.Arrays;

/**
 * {@code benchmarks.jar}'s entry point: JMH's own command line, with the long options every other
 * Portcullis command takes ({@code --help}, {@code --list}) and our process settings (Netty's,
 * java.util.logging through SLF4J). Everything else goes to JMH unchanged.
 */
public final class BenchmarksMain {
  private BenchmarksMain() {}

  public static void main(String[] args) throws Exception {
    Programs.start(null);
    String[] jmh =
        Arrays.stream(args)
            .map(
                a ->
                    switch (a) {
                      case "--help" -> "-h";
                      case "--list" -> "-l";
                      default -> a;
                    })
            .toArray(String[]::new);
    org.openjdk.jmh.Main.main(jmh);
  }
}
