package dev.portcullis.crypto.cli;

import dev.portcullis.support.Cli;
import dev.portcullis.support.ProgressLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The first-use harness: how long the first MAC, encryption or digest takes in a fresh JVM with and
 * without self-tests and pre-warming, against the steady state. Each sample is a new JVM, because
 * first use is exactly what a warm JVM cannot show.
 */
@Command(
    name = "first-use",
    description = "Measure first-operation latency in fresh JVMs with and without pre-warming.")
final class FirstUseCommand implements Callable<Integer> {
  @Mixin ProviderTableOption table;

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Fresh JVMs per algorithm and mode (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--algorithms",
      split = ",",
      defaultValue = "HmacSHA256,AES/GCM/NoPadding,SHA-256",
      description = "Algorithms to measure (default: ${DEFAULT-VALUE}).")
  List<String> algorithms;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private static final String[][] MODES = {
    {"cold (no self-test, no prewarm)", "false", "false"},
    {"self-test only", "true", "false"},
    {"self-test + prewarm", "true", "true"},
  };

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (runs < 1 || runs > 100) {
      throw Cli.usage("--runs: " + runs + " (expected: 1 to 100)");
    }
    out.printf(
        "first-operation latency, 64-byte input, median of %d fresh JVMs each (%s %s)%n",
        runs, System.getProperty("java.vm.name"), System.getProperty("java.version"));
    out.printf(
        "  %-20s %-33s %-10s %11s %11s %11s %10s %9s%n",
        "ALGORITHM",
        "MODE",
        "PROVIDER",
        "START ms",
        "1st op us",
        "2nd op us",
        "steady ns",
        "1st/steady");
    // Each probe is a fresh JVM (about half a second here): say how far it is on stderr.
    ProgressLine progress =
        new ProgressLine(
            spec.commandLine().getErr(),
            "first-use",
            "fresh JVMs",
            (long) algorithms.size() * MODES.length * runs);
    for (String alg : algorithms) {
      for (String[] mode : MODES) {
        List<long[]> samples = new ArrayList<>();
        String provider = "?";
        for (int i = 0; i < runs; i++) {
          Map<String, String> r = probe(alg, mode[1], mode[2]);
          if (r == null) {
            return 1;
          }
          progress.done(1);
          provider = r.get("provider");
          samples.add(
              new long[] {
                Long.parseLong(r.get("startup")),
                Long.parseLong(r.get("first")),
                Long.parseLong(r.get("second")),
                Long.parseLong(r.get("steady"))
              });
        }
        long startup = median(samples, 0);
        long first = median(samples, 1);
        long second = median(samples, 2);
        long steady = median(samples, 3);
        out.printf(
            "  %-20s %-33s %-10s %11.1f %11d %11d %10d %9.0fx%n",
            alg,
            mode[0],
            provider,
            startup / 1000.0,
            first,
            second,
            steady,
            first * 1000.0 / Math.max(1, steady));
        out.flush();
      }
    }
    out.println(
        "  START = registry start-up (provider loading, self-tests, prewarm); 1st op includes"
            + " making the keyed handle; steady = median of 2000 further operations");
    out.flush();
    return 0;
  }

  private Map<String, String> probe(String alg, String selfTest, String prewarm)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            Arrays.asList(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Dlogback.configurationFile=dev/portcullis/crypto/cli/logback-cli.xml",
                "-cp",
                System.getProperty("java.class.path"),
                FirstUseProbe.class.getName(),
                table.config.toString(),
                alg,
                selfTest,
                prewarm));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Map<String, String> result = null;
    StringBuilder output = new StringBuilder();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        output.append(line).append('\n');
        if (line.startsWith("RESULT ")) {
          String[] f = line.split(" ");
          result = new LinkedHashMap<>();
          result.put("provider", f[2]);
          result.put("startup", f[3]);
          result.put("first", f[4]);
          result.put("second", f[5]);
          result.put("steady", f[6]);
        }
      }
    }
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0 || result == null) {
      p.destroyForcibly();
      spec.commandLine().getErr().println("error: probe JVM failed:\n" + output);
      return null;
    }
    return result;
  }

  private static long median(List<long[]> samples, int field) {
    long[] v = samples.stream().mapToLong(s -> s[field]).sorted().toArray();
    return v[v.length / 2];
  }
}
