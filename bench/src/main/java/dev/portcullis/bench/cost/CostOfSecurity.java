package dev.portcullis.bench.cost;

import dev.portcullis.bench.CopsLayers;
import dev.portcullis.bench.Haproxy;
import dev.portcullis.bench.compress.CompressionModel;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.Cli;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.Programs;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cost of security, MYSEA's way (the MYSEA thesis), applied to Portcullis on loopback: a base
 * case, then each security layer alone and together, each measured the same way — connection set-up
 * (CC), round trip (RR), connect-request-close (CRR), decisions per second (STREAM), and the COPS
 * over TLS/IPsec paper's five-message session — plus a raw TCP baseline of the same shapes. Writes
 * every trial to JSON and a self-contained HTML report (boxplots, the overhead table, provider
 * charts from a JMH result).
 */
@Command(
    name = "cost-of-security",
    mixinStandardHelpOptions = true,
    description = "What each security layer costs COPS on this machine, trial by trial.",
    subcommands = {CompressionModel.class})
public final class CostOfSecurity implements Callable<Integer> {
  @Option(names = "--trials", defaultValue = "100", description = "Per cell (${DEFAULT-VALUE}).")
  int trials;

  @Option(
      names = "--warmup",
      defaultValue = "10",
      description = "Trials per cell run first and discarded (${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--rounds",
      defaultValue = "0",
      description =
          "The cells take turns in this many rounds, so drift falls on all alike"
              + " (default: a fifth of --trials, five trials of every cell per round).")
  int rounds;

  /**
   * The rounds the trials are spread over: by default five trials of every cell per round, after
   * one that is not counted. This machine's round trip drifts by 2x within seconds (33 to 72 us for
   * one stack, 2026-11-24), and with 5 rounds of 20 a layer's RR trials fell on other stretches of
   * drift than its base's: Integrity came out 40 % faster than plain in one run. With a round per
   * trial the drift cancelled, but every trial then ran cold, right after the other layers (plain
   * CC 609-700 us against 250 us warm; Integrity's CC +22-35 % where a warm reconnect pays +12 %):
   * hence short rounds, and each cell's first trial in a round discarded.
   */
  int rounds() {
    return rounds != 0 ? rounds : Math.max(1, trials / 5);
  }

  @Option(
      names = "--rr-batch",
      defaultValue = "20",
      description = "Round trips averaged into one RR trial (${DEFAULT-VALUE}).")
  int rrBatch;

  @Option(
      names = "--stream-batch",
      defaultValue = "256",
      description = "Decisions in one STREAM trial (${DEFAULT-VALUE}).")
  int streamBatch;

  @Option(
      names = "--window",
      defaultValue = "32",
      description = "Requests outstanding in STREAM (${DEFAULT-VALUE}).")
  int window;

  @Option(
      names = "--engines",
      split = ",",
      defaultValue = "openssl,jdk,conscrypt,bouncycastle",
      description = "TLS engines, one layer each (${DEFAULT-VALUE}).")
  List<String> engines;

  @Option(
      names = "--samples",
      defaultValue = "config",
      description = "Directory of the sample policies for the engine layers (${DEFAULT-VALUE}).")
  Path samples;

  @Option(
      names = "--out",
      defaultValue = "target/cost-of-security",
      description = "Where results.json and report.html go (${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--jmh",
      description = "A JMH JSON result (-rf json) whose provider benchmarks the report charts.")
  Path jmh;

  @Option(
      names = "--network",
      defaultValue = "loopback",
      description =
          "loopback (default), or lab: the PDPs in one network namespace and the PEPs in another,"
              + " across a veth, with IPsec layers through strongSwan (root and strongSwan"
              + " needed; docs/benchmarks.md).")
  String network;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    // BCJSSE logs every handshake through java.util.logging at INFO: hundreds of lines a run.
    BC_LOG.setLevel(Level.WARNING);
    System.exit(Cli.of("cost-of-security", new CostOfSecurity()).execute(args));
  }

  /** Held so the level set on it is not lost when the logger is garbage-collected. */
  private static final Logger BC_LOG = Logger.getLogger("org.bouncycastle");

  /** The options' mistakes, each named, before anything is measured; empty when they are sound. */
  List<String> problems() {
    List<String> p = new ArrayList<>();
    if (trials < 1) {
      p.add("--trials " + trials + ": at least 1");
    }
    if (warmup < 0) {
      p.add("--warmup " + warmup + ": 0 or more");
    }
    if (rounds < 0 || rounds > Math.max(1, trials)) {
      p.add("--rounds " + rounds + ": 1 to --trials (" + trials + "), or 0 for a fifth of them");
    }
    if (rrBatch < 1) {
      p.add("--rr-batch " + rrBatch + ": at least 1");
    }
    if (window < 1 || streamBatch < window) {
      p.add("--window " + window + " and --stream-batch " + streamBatch + ": 1 <= window <= batch");
    }
    for (String e : engines) {
      if (TlsEngine.ofName(e) == null) {
        p.add("--engines: no engine " + e + " (expected: openssl, jdk, conscrypt, bouncycastle)");
      }
    }
    if (jmh != null) {
      if (!Files.isRegularFile(jmh)) {
        p.add("--jmh " + jmh + ": no such file");
      } else {
        try {
          JmhResults.read(jmh);
        } catch (IOException | RuntimeException e) {
          p.add("--jmh " + jmh + ": not a JMH JSON result (-rf json): " + e.getMessage());
        }
      }
    }
    if (!network.equals("loopback") && !network.equals("lab")) {
      p.add("--network " + network + ": loopback or lab");
    }
    if (Files.exists(out) && !Files.isDirectory(out)) {
      p.add("--out " + out + ": a file, not a directory");
    }
    return p;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter log = spec.commandLine().getOut();
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      PrintWriter err = spec.commandLine().getErr();
      problems.forEach(p -> err.println("error: " + p));
      err.flush();
      return 2;
    }
    NetworkPaths paths = null;
    if (network.equals("lab")) {
      String why = NetworkPaths.unavailable();
      if (why != null) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("cost-of-security: --network lab cannot run here: " + why);
        err.flush();
        return 1;
      }
      Path labDir = Files.createTempDirectory("portcullis-cost-lab");
      paths = NetworkPaths.open(labDir); // this thread is in the PEPs' namespace from now on
      log.println(paths.describe());
    }
    try {
      return measure(log, paths);
    } finally {
      if (paths != null) {
        paths.close();
      }
    }
  }

  private int measure(PrintWriter log, NetworkPaths paths) throws Exception {
    Instant started = Instant.now();
    // The layers take seconds to set up (PDPs, TLS engines, proxies): say so at once.
    log.println("cost-of-security: setting up the layers (PDPs, TLS engines, proxies)...");
    log.flush();
    Map<String, Map<Metric, List<Double>>> results = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    Map<String, long[]> resumptions = new LinkedHashMap<>();
    try (CopsLayers cl =
            new CopsLayers(samples, paths == null ? List.of() : NetworkPaths.servers());
        CryptoRegistry registry =
            CryptoRegistry.create(
                CryptoConfig.builder()
                    .defaults("SunJCE", "SUN")
                    .enableLegacy(Algorithm.HMAC_MD5) // the MD5 Integrity layer only
                    .prewarm(false)
                    .build());
        RawTcp raw = new RawTcp()) {
      List<Layer> layers = LoopbackLayers.of(cl, registry, engines, samples, skipped);
      if (paths != null) {
        layers = NetworkPaths.acrossTheLab(layers, skipped);
      }
      Map<NetworkPaths.Route, RawTcp> responders = new EnumMap<>(NetworkPaths.Route.class);
      long connections = (long) layers.size() * (trials + warmup) * 5;
      String tw = timeWait(connections);
      log.println(tw);
      LayerRunner.Batches batches = new LayerRunner.Batches(rrBatch, streamBatch, window);
      List<LayerRunner> runners = new ArrayList<>();
      for (Layer l : layers) {
        runners.add(
            switch (l.route()) {
              case COPS -> new CopsRunner(l, cl, batches, paths);
              case RAW ->
                  new RawRunner(
                      l, l.path() == null ? raw : paths.responder(l.path(), responders), batches);
              case HAPROXY, PEP_PROXY -> new ProxiedRunner(l, raw, batches, cl, Haproxy.find());
            });
        results.put(l.name(), new EnumMap<>(Metric.class));
      }
      try {
        for (LayerRunner r : runners) {
          r.open();
        }
        log.printf(
            "cost-of-security: %d layers open in %d s; measuring%n",
            runners.size(), Duration.between(started, Instant.now()).toSeconds());
        log.flush();
        // Warm-up round, then the measured rounds; in each, every cell takes its turn (layers
        // outer, in an order of their own each round; metrics inner).
        long cellsPerRound = runners.stream().mapToLong(r -> r.metrics().size()).sum();
        int rounds = rounds();
        Progress progress = new Progress(log, cellsPerRound * (warmup + rounds + trials));
        for (int round = -1; round < rounds; round++) {
          int n = round < 0 ? warmup : share(trials, rounds, round);
          progress.round(round < 0 ? "warm-up" : "round " + (round + 1) + " of " + rounds);
          // a new order of layers each round (seeded: a rerun takes the same orders), so that
          // whatever one layer leaves behind (garbage, sockets in TIME_WAIT, a cold cache) falls
          // on a different next layer each time rather than always on the same one
          List<LayerRunner> order = new ArrayList<>(runners);
          Collections.shuffle(order, new Random(round + 1));
          for (LayerRunner r : order) {
            progress.at(r.layer.name());
            for (Metric m : r.metrics()) {
              if (round >= 0) {
                r.trial(m); // settles the cell after the other layers ran: not counted
                progress.done(1);
              }
              List<Double> values = new ArrayList<>();
              for (int i = 0; i < n; i++) {
                values.add(r.trial(m));
                progress.done(1);
              }
              if (round >= 0) {
                results
                    .get(r.layer.name())
                    .computeIfAbsent(m, k -> new ArrayList<>())
                    .addAll(values);
              }
            }
          }
        }
        for (LayerRunner r : runners) {
          long[] k = r.resumptions();
          if (k != null) {
            resumptions.put(r.layer.name(), k);
          }
        }
      } finally {
        for (LayerRunner r : runners) {
          r.close();
        }
        for (RawTcp r : responders.values()) {
          r.close();
        }
      }
      List<Cell> cells = new ArrayList<>();
      Map<String, String> descriptions = new LinkedHashMap<>();
      for (Layer l : layers) {
        descriptions.put(l.name(), l.description());
        results
            .get(l.name())
            .forEach(
                (m, v) ->
                    cells.add(
                        new Cell(
                            l.name(), m, v.stream().mapToDouble(Double::doubleValue).toArray())));
      }
      Report report =
          new Report(
              started,
              Duration.between(started, Instant.now()),
              options(),
              descriptions,
              cells,
              skipped,
              tw,
              resumptions);
      JmhResults charts = jmh == null ? null : JmhResults.read(jmh);
      // each file replaced on its own, nothing else in --out touched (principle 9)
      DurableFiles.replace(out.resolve("results.json"), report::writeJson);
      DurableFiles.replace(out.resolve("report.html"), f -> report.writeHtml(f, charts));
      report.printSummary(log);
      log.printf("%nwrote %s and %s%n", out.resolve("results.json"), out.resolve("report.html"));
    }
    return 0;
  }

  /** Trials of round {@code r} when {@code total} are spread over {@code rounds}. */
  static int share(int total, int rounds, int r) {
    return total / rounds + (r < total % rounds ? 1 : 0);
  }

  private Map<String, Object> options() {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("trials", trials);
    o.put("warmup", warmup);
    o.put("rounds", rounds());
    o.put("rrBatch", rrBatch);
    o.put("streamBatch", streamBatch);
    o.put("window", window);
    o.put("engines", engines);
    o.put("network", network);
    return o;
  }

  /**
   * TIME_WAIT: every connection the harness closes leaves its client port in TIME_WAIT for 60 s
   * (the thesis's runs failed on this). Counts the connections planned against the ephemeral port
   * range and says so; the harness never reuses ports or resets connections to dodge it.
   */
  static String timeWait(long planned) {
    long range = 28_232;
    try {
      String[] r =
          Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
      range = Long.parseLong(r[1]) - Long.parseLong(r[0]) + 1;
    } catch (IOException | RuntimeException e) {
      // not Linux: assume the Linux default
    }
    return String.format(
        "TIME_WAIT: about %d connections planned against %d ephemeral ports (%s)",
        planned,
        range,
        planned < range / 2
            ? "fine: ports in TIME_WAIT cannot run out"
            : "too many: lower --trials, or wait a minute between runs");
  }
}
