package dev.portcullis.bench;

import dev.portcullis.support.Programs;
import java.util.Arrays;

/**
 * {@code benchmarks.jar}'s entry point: JMH's own command line, with the long options every other
 * Portcullis command takes ({@code --help}, {@code --list}) and our process settings (Netty's,
 * java.util.logging through SLF4J). Everything else goes to JMH unchanged; an option JMH does not
 * know is one line and exit 2, as for every other command.
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
    String mistake = usageMistake(jmh);
    if (mistake != null) {
      System.err.println(mistake);
      System.exit(2);
    }
    org.openjdk.jmh.Main.main(jmh);
  }

  /**
   * The one line that says what is wrong with JMH's arguments {@code jmh}, or null: a usage mistake
   * is that line and exit 2, as for every other command (JMH says it in two lines and exits 1, the
   * code of a run that failed).
   */
  static String usageMistake(String[] jmh) {
    try {
      new org.openjdk.jmh.runner.options.CommandLineOptions(jmh);
      return null;
    } catch (org.openjdk.jmh.runner.options.CommandLineOptionException e) {
      return "benchmarks.jar: "
          + e.getMessage().strip().replaceAll("\\s+", " ")
          + "; see java -jar benchmarks.jar --help";
    }
  }
}
