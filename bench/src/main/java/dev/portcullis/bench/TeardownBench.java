package dev.portcullis.bench;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What closing a PEP connection costs with request states installed on it: a PEP installs {@code
 * --states} ACCESS decisions at a PDP (rules engine), then closes (Client-Close and the TCP close);
 * the time runs from the close until the PDP has let the connection go (released every state and
 * unregistered it). Connections with no states and with {@code --states} take turns, so the
 * difference is what the states cost. Issue 18's aim: 1,000 states closed within 1 ms.
 */
@Command(
    name = "teardown-bench",
    mixinStandardHelpOptions = true,
    description = "Time closing a PEP connection with and without installed request states.")
public final class TeardownBench implements Callable<Integer> {
  @Option(
      names = "--states",
      defaultValue = "1000",
      description = "Request states installed before the close (default: ${DEFAULT-VALUE}).")
  int states;

  @Option(
      names = "--rounds",
      defaultValue = "40",
      description = "Closes measured of each kind, taking turns (default: ${DEFAULT-VALUE}).")
  int rounds;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("teardown-bench", new TeardownBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (states < 1 || rounds < 1) {
      spec.commandLine().getErr().println("error: --states and --rounds must be at least 1");
      return 2;
    }
    AccessRequest r = CopsLayers.rulesRequest();
    Context ctx = new Context(Context.R_INCOMING, 0);
    long[][] closes = new long[2][rounds];
    try (CopsLayers cl = new CopsLayers(null);
        PdpServer pdp = cl.pdp(CopsLayers.trivialRules(), "")) {
      int warmup = Math.max(3, rounds / 5);
      for (int round = -warmup; round < rounds; round++) {
        for (int kind = 0; kind < 2; kind++) {
          int n = kind == 0 ? 0 : states;
          String id = "teardown-" + (round + warmup) + "-" + kind;
          PepClient pep =
              PepClient.builder().pdp(pdp.address()).pepId(id).clientType(CopsLayers.RULES).build();
          pep.open().get(10, TimeUnit.SECONDS);
          List<CompletableFuture<?>> installed = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            installed.add(pep.request("h" + i, ctx, r));
          }
          for (CompletableFuture<?> f : installed) {
            f.get(30, TimeUnit.SECONDS);
          }
          long t0 = System.nanoTime();
          pep.close();
          long deadline = t0 + TimeUnit.SECONDS.toNanos(10);
          while (pdp.connectedPeps().contains(id) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
          long t = System.nanoTime() - t0;
          if (round >= 0) {
            closes[kind][round] = t;
          }
        }
      }
    }
    long none = median(closes[0]);
    long with = median(closes[1]);
    out.printf(
        "close until the PDP let go, median of %d: no states %.0f us, %d states %.0f us;"
            + " the states cost %.0f us (%.2f us each)%n",
        rounds, none / 1e3, states, with / 1e3, (with - none) / 1e3, (with - none) / 1e3 / states);
    out.flush();
    return 0;
  }

  private static long median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
