package dev.portcullis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.support.Cli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The dynamic VPN tunnels paper's unit (its table 5): cycles per byte. Reads a JMH JSON result
 * ({@code -rf json}) and, for every benchmark with a {@code size} parameter and a time per
 * operation, divides the cycles the operation took (time x this machine's clock) by its bytes.
 */
@Command(
    name = "cycles-per-byte",
    mixinStandardHelpOptions = true,
    description = "JMH results (ns/op with a size parameter) in cycles per byte.")
public final class CyclesPerByte implements Callable<Integer> {
  @Parameters(index = "0", description = "A JMH result written with -rf json.")
  Path results;

  @Option(
      names = "--ghz",
      description = "The clock in GHz (default: the mean 'cpu MHz' of /proc/cpuinfo).")
  Double ghz;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(Cli.of("cycles-per-byte", new CyclesPerByte()).execute(args));
  }

  /** The mean current clock of the CPUs, as the kernel reports it. */
  static double clockGhz() throws IOException {
    double sum = 0;
    int n = 0;
    for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
      if (l.startsWith("cpu MHz")) {
        sum += Double.parseDouble(l.substring(l.indexOf(':') + 1).trim());
        n++;
      }
    }
    if (n == 0) {
      throw new IOException("no 'cpu MHz' in /proc/cpuinfo: give --ghz");
    }
    return sum / n / 1000;
  }

  /** Cycles per byte of one operation of {@code nanos} on {@code bytes} at {@code ghz}. */
  static double cyclesPerByte(double nanos, int bytes, double ghz) {
    return nanos * ghz / bytes;
  }

  @Override
  public Integer call() throws Exception {
    double clock = ghz != null ? ghz : clockGhz();
    var out = spec.commandLine().getOut();
    out.printf("clock %.3f GHz%n", clock);
    out.printf("%-60s %8s %12s %10s%n", "benchmark (parameters)", "bytes", "ns/op", "cycles/B");
    Map<String, String> rows = new TreeMap<>();
    for (JsonNode r : new ObjectMapper().readTree(results.toFile())) {
      JsonNode params = r.path("params");
      JsonNode pm = r.get("primaryMetric");
      String unit = pm.get("scoreUnit").asText();
      if (!params.has("size") || !unit.equals("ns/op")) {
        continue;
      }
      int bytes = params.get("size").asInt();
      double ns = pm.get("score").asDouble();
      StringBuilder name =
          new StringBuilder(r.get("benchmark").asText().replaceAll(".*\\.(\\w+\\.\\w+)$", "$1"));
      params
          .properties()
          .forEach(
              e -> {
                if (!e.getKey().equals("size")) {
                  name.append(' ').append(e.getValue().asText());
                }
              });
      rows.put(
          name + String.format("%08d", bytes),
          String.format(
              "%-60s %8d %12.1f %10.2f", name, bytes, ns, cyclesPerByte(ns, bytes, clock)));
    }
    rows.values().forEach(out::println);
    return 0;
  }
}
