package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityAlgorithm;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepSecurity;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What securing COPS costs, side by side in one run on loopback (issue 5's figures): connection
 * set-up to CAT for plain COPS, a full TLS handshake and a resumed one, per engine; REQ/DEC round
 * trip (one outstanding) and decisions per second (a window outstanding) for plain, Integrity, TLS
 * and TLS with Integrity. PDP and PEP run in this JVM with their real network code; each cell gets
 * its own PDP configured for it.
 */
@Command(
    name = "secure-cops-bench",
    mixinStandardHelpOptions = true,
    description = "Measure COPS connection set-up and REQ/DEC cost per security layer and engine.")
public final class SecureCopsBench implements Callable<Integer> {
  @Option(
      names = "--connects",
      defaultValue = "200",
      description = "Measured connections per set-up cell (default: ${DEFAULT-VALUE}).")
  int connects;

  @Option(
      names = "--round-trips",
      defaultValue = "5000",
      description = "Measured REQ/DEC round trips per layer (default: ${DEFAULT-VALUE}).")
  int roundTrips;

  @Option(
      names = "--decisions",
      defaultValue = "50000",
      description = "Decisions for the throughput figure per layer (default: ${DEFAULT-VALUE}).")
  int decisions;

  @Option(
      names = "--window",
      defaultValue = "64",
      description = "Requests outstanding in the throughput run (default: ${DEFAULT-VALUE}).")
  int window;

  @Option(
      names = "--warmup",
      defaultValue = "0.2",
      description =
          "Fraction of each cell's count a warm-up pass runs, in the same order, not counted"
              + " (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--warm-up-seconds",
      defaultValue = "60",
      description =
          "At most this long repeating the warm-up pass until one leaves the JIT quiet"
              + " (default: ${DEFAULT-VALUE}).")
  int warmUpSeconds;

  @Option(
      names = "--rounds",
      defaultValue = "40",
      description =
          "Rounds the cells take turns in; each runs 1/rounds of its count per round, and a"
              + " ratio is the median of the rounds' ratios (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--engines",
      split = ",",
      defaultValue = "openssl,jdk,conscrypt,bouncycastle",
      description = "TLS engines for the set-up cells (default: ${DEFAULT-VALUE}).")
  List<String> engines;

  @Option(
      names = "--tls-engine",
      defaultValue = "openssl",
      description = "TLS engine of the round-trip cells (default: ${DEFAULT-VALUE}).")
  String rttEngine;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private CopsLayers layers;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("secure-cops-bench", new SecureCopsBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    layers = new CopsLayers(null);
    String keys = CopsLayers.integrityKeys(IntegrityAlgorithm.HMAC_SHA256_128);
    List<Cell> setup = new ArrayList<>();
    List<Cell> stack = new ArrayList<>();
    try (CryptoRegistry registry = IntegrityKeys.registry(List.of())) {
      setup.add(new Cell("plain", layers.pdp(CopsLayers.trivialRules(), ""), null));
      for (String e : engines) {
        TlsEngine engine = TlsEngine.ofName(e);
        if (engine == null || engine.unavailabilityCause() != null) {
          out.printf(
              "%s skipped: %s%n",
              e, engine == null ? "unknown engine" : engine.unavailabilityCause());
          continue;
        }
        // Both versions: TLS 1.3 resumption still runs an ECDHE key exchange, TLS 1.2's does not;
        // Conscrypt and BCJSSE resume only TLS 1.2 sessions (docs/tls.md).
        for (String p : List.of("TLSv1.3", "TLSv1.2")) {
          String sec = layers.tlsSecurity(engine, p, "", "confidentiality");
          setup.add(
              new Cell(
                  e + " " + p + " full",
                  layers.pdp(CopsLayers.trivialRules(), sec),
                  layers.tls(engine, p, 0, null)));
          setup.add(
              new Cell(
                  e + " " + p + " resumed",
                  layers.pdp(CopsLayers.trivialRules(), sec),
                  layers.tls(engine, p, 1_000_000, null)));
        }
      }
      TlsEngine te = TlsEngine.ofName(rttEngine);
      stack.add(new Cell("plain", layers.pdp(CopsLayers.trivialRules(), ""), null));
      stack.add(
          new Cell(
              "integrity (HMAC-SHA-256-128)",
              layers.pdp(
                  CopsLayers.trivialRules(),
                  "<security>" + keys + "<protection level=\"integrity\"/></security>"),
              layers.integrity(IntegrityAlgorithm.HMAC_SHA256_128, registry)));
      stack.add(
          new Cell(
              "TLS 1.3",
              layers.pdp(
                  CopsLayers.trivialRules(),
                  layers.tlsSecurity(te, "TLSv1.3", "", "confidentiality")),
              layers.tls(te, "TLSv1.3", 1_000_000, null)));
      stack.add(
          new Cell(
              "TLS 1.3 + integrity",
              layers.pdp(
                  CopsLayers.trivialRules(),
                  layers.tlsSecurity(te, "TLSv1.3", keys, "integrity+confidentiality")),
              layers.tls(
                  te,
                  "TLSv1.3",
                  1_000_000,
                  layers.ring(IntegrityAlgorithm.HMAC_SHA256_128, registry))));
      for (Cell c : setup) {
        c.open();
      }
      for (Cell c : stack) {
        c.open();
      }
      // Warm-up: every code path, in the same order, until a pass leaves the JIT quiet; then the
      // measured rounds. The cells take turns round by round, so drift on a noisy machine falls
      // on all of them alike.
      JitWarmUp.Result warm =
          JitWarmUp.run(() -> round(setup, stack, false), 1, warmUpSeconds * 1000L);
      out.println(warm.describe());
      out.flush();
      for (int round = 0; round < rounds; round++) {
        round(setup, stack, true);
      }
      report(out, setup, stack, te);
    } finally {
      for (Cell c : setup) {
        c.close();
      }
      for (Cell c : stack) {
        c.close();
      }
      layers.close();
    }
    out.flush();
    return 0;
  }

  /** One round of every cell: a measured one, or a warm-up pass of the --warmup fraction. */
  private void round(List<Cell> setup, List<Cell> stack, boolean measured) throws Exception {
    int k = measured ? connects / rounds : Math.max(1, (int) (connects * warmup));
    for (Cell c : setup) {
      c.connects(k, measured);
    }
    int r = measured ? roundTrips / rounds : Math.max(1, (int) (roundTrips * warmup));
    int d = measured ? decisions / rounds : Math.max(window, (int) (decisions * warmup));
    for (Cell c : stack) {
      c.roundTrips(r, measured);
      c.burst(d, window, measured);
    }
  }

  private void report(PrintWriter out, List<Cell> setup, List<Cell> stack, TlsEngine te) {
    out.printf(
        "Connection set-up, connect to CAT (PepClient.reconnect: Client-Close, close, connect,"
            + " OPN, CAT), %d per cell in %d rounds, microseconds:%n",
        connects, rounds);
    out.printf("  %-26s %9s %9s %11s %12s%n", "cell", "median", "p90", "vs plain", "handshakes");
    Cell plain = setup.get(0);
    Cell full = null;
    for (Cell c : setup) {
      double med = c.median();
      String ratio = "";
      if (c.name.endsWith("full")) {
        full = c;
        ratio = String.format("%.1fx", paired(c.roundMedians, plain.roundMedians));
      } else if (c.name.endsWith("resumed") && full != null) {
        ratio = String.format("%.2f full", paired(c.roundMedians, full.roundMedians));
      }
      out.printf(
          "  %-26s %9.0f %9.0f %11s %12s%n",
          c.name,
          med,
          c.quantile(0.9),
          ratio,
          c.pepSecurity == null
              ? ""
              : c.pep.fullHandshakes() + "f/" + c.pep.resumedHandshakes() + "r");
    }
    out.printf(
        "%nREQ/DEC on an open connection, TLS engine %s: round trip with one outstanding (%d),"
            + " decisions/s with %d outstanding (%d):%n",
        te.configName(), roundTrips, window, decisions);
    out.printf(
        "  %-28s %9s %9s %9s %12s %9s%n",
        "layer", "rtt med", "rtt p90", "vs plain", "decisions/s", "vs plain");
    Cell base = stack.get(0);
    for (Cell c : stack) {
      out.printf(
          "  %-28s %9.1f %9.1f %9s %12.0f %9s%n",
          c.name,
          c.median(),
          c.quantile(0.9),
          c == base
              ? ""
              : String.format("%+.0f%%", 100 * (paired(c.roundMedians, base.roundMedians) - 1)),
          c.perSecond(),
          c == base ? "" : String.format("%.2fx", paired(c.roundRates, base.roundRates)));
    }
    out.printf(
        "(medians and rates over all rounds; 'vs plain' and 'full' are the median of the rounds'"
            + " own ratios: each round runs the cells back to back, so this machine's drift,"
            + " 2x within seconds, falls on both sides of a ratio alike)%n");
  }

  /** The median over rounds of {@code a}'s value in a round divided by {@code b}'s. */
  static double paired(List<Double> a, List<Double> b) {
    int n = Math.min(a.size(), b.size());
    double[] r = new double[n];
    for (int i = 0; i < n; i++) {
      r[i] = a.get(i) / b.get(i);
    }
    return n == 0 ? Double.NaN : Stats.of(r).median();
  }

  // ---- cells ------------------------------------------------------------------------------------

  /** One PDP and one PEP configured for a cell, and the samples taken on them. */
  private static final class Cell implements AutoCloseable {
    final String name;
    final PdpServer pdp;
    final PepSecurity pepSecurity;
    PepClient pep;
    final List<Long> nanos = new ArrayList<>();
    final List<Double> roundMedians = new ArrayList<>(); // per measured round, microseconds
    final List<Double> roundRates = new ArrayList<>(); // decisions/s per measured round
    long decided;
    long decidingNanos;
    final AccessRequest ar = CopsLayers.rulesRequest();
    final Context ctx = new Context(Context.R_INCOMING, 0);

    Cell(String name, PdpServer pdp, PepSecurity pepSecurity) {
      this.name = name;
      this.pdp = pdp;
      this.pepSecurity = pepSecurity;
    }

    void open() throws Exception {
      pep =
          PepClient.builder()
              .pdp(pdp.address())
              .pepId("bench")
              .security(pepSecurity)
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      pep.open().get(30, TimeUnit.SECONDS);
    }

    void connects(int n, boolean measured) throws Exception {
      long[] round = new long[n];
      for (int i = 0; i < n; i++) {
        long t = System.nanoTime();
        pep.reconnect().get(30, TimeUnit.SECONDS);
        round[i] = System.nanoTime() - t;
      }
      keep(round, measured);
    }

    void roundTrips(int n, boolean measured) throws Exception {
      long[] round = new long[n];
      for (int i = 0; i < n; i++) {
        long t = System.nanoTime();
        pep.request("h", ctx, ar).get(30, TimeUnit.SECONDS);
        round[i] = System.nanoTime() - t;
      }
      keep(round, measured);
    }

    private void keep(long[] round, boolean measured) {
      if (measured && round.length > 0) {
        for (long v : round) {
          nanos.add(v);
        }
        roundMedians.add(Quantiles.at(round, 0.5) / 1e3);
      }
    }

    /** {@code n} decisions in waves of {@code window} outstanding. */
    void burst(int n, int window, boolean measured) throws Exception {
      long t = System.nanoTime();
      int done = 0;
      while (done < n) {
        List<CompletableFuture<?>> wave = new ArrayList<>(window);
        for (int i = 0; i < window; i++) {
          wave.add(pep.request("w" + i, ctx, ar));
        }
        CompletableFuture.allOf(wave.toArray(new CompletableFuture<?>[0]))
            .get(60, TimeUnit.SECONDS);
        done += window;
      }
      if (measured) {
        long took = System.nanoTime() - t;
        decided += done;
        decidingNanos += took;
        roundRates.add(done / (took / 1e9));
      }
    }

    double quantile(double q) {
      return Quantiles.at(nanos.stream().mapToLong(Long::longValue).toArray(), q) / 1e3;
    }

    double median() {
      return quantile(0.5);
    }

    double perSecond() {
      return decided / (decidingNanos / 1e9);
    }

    @Override
    public void close() {
      if (pep != null) {
        pep.close();
      }
      pdp.close();
    }
  }
}
