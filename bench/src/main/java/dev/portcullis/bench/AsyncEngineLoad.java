package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.pdp.policy.rules.RulesEngine;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.support.ProgressLine;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What deciding through an {@link AsyncPolicyEngine} costs against the same rules decided
 * synchronously, side by side in one run: three PDPs on loopback, one per engine, REQ/DEC round
 * trips alternating between them in rounds (the ratios are the medians of the rounds' own ratios),
 * then decisions per second with many requests outstanding. The asynchronous engines wrap the rules
 * engine: {@code rules-async-now} completes its stage before returning it (the PDP's bookkeeping
 * alone: the pending entry, the timeout scheduled and cancelled), {@code rules-async-hop} completes
 * it on another thread, as an engine calling out to another system does (plus the hand-back to the
 * event loop).
 */
@Command(
    name = "async-engine-load",
    mixinStandardHelpOptions = true,
    description = "Round trips and throughput: a synchronous engine against asynchronous ones.")
public final class AsyncEngineLoad implements Callable<Integer> {
  @Mixin LoadOptions load = new LoadOptions();

  @Option(
      names = "--round-trips",
      defaultValue = "60000",
      description = "Round trips measured per engine (default: ${DEFAULT-VALUE}).")
  int roundTrips;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("async-engine-load", new AsyncEngineLoad()).execute(args));
  }

  /** The rules engine behind an asynchronous face. */
  private static final class Wrapped implements AsyncPolicyEngine {
    private final RulesEngine rules;
    private final Executor completer; // null: complete before returning

    Wrapped(RulesEngine rules, Executor completer) {
      this.rules = rules;
      this.completer = completer;
    }

    @Override
    public CompletionStage<PolicyDecision> decideAsync(PolicyRequest request) {
      return completer == null
          ? CompletableFuture.completedFuture(rules.decide(request))
          : CompletableFuture.supplyAsync(() -> rules.decide(request), completer);
    }

    @Override
    public String describe() {
      return rules.describe() + (completer == null ? ", completed at once" : ", on another thread");
    }
  }

  /** The thread {@code rules-async-hop} completes on: one, as a client library's would be. */
  private static final ExecutorService HOP =
      Executors.newSingleThreadExecutor(Threads.daemon("async-engine-load-completer"));

  /** Loads the rules engine and wraps it: found by the PDP with ServiceLoader, by name. */
  private abstract static class WrappingProvider implements PolicyEngineProvider {
    private final String name;
    private final Executor completer;

    WrappingProvider(String name, Executor completer) {
      this.name = name;
      this.completer = completer;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      return new Wrapped(RulesEngine.load(policyFile), completer);
    }
  }

  /** {@code engine="rules-async-now"}. */
  public static final class NowProvider extends WrappingProvider {
    public NowProvider() {
      super("rules-async-now", null);
    }
  }

  /** {@code engine="rules-async-hop"}. */
  public static final class HopProvider extends WrappingProvider {
    public HopProvider() {
      super("rules-async-hop", HOP);
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    String[] engines = {"rules", "rules-async-now", "rules-async-hop"};
    PdpServer[] pdp = new PdpServer[engines.length];
    byte[] opn = CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "load"));
    byte[] req = PdpLoad.request(0);
    EventLoopGroup client = Transport.EPOLL.group(1);
    try {
      for (int e = 0; e < engines.length; e++) {
        pdp[e] = PdpServer.start(PdpLoad.config("async-engine-load", engines[e], load.policy), 1);
      }
      for (PdpServer p : pdp) {
        LoopbackLoad.pingPong(client, p.address(), opn, req, roundTrips / 4); // warm-up
      }
      int rounds = 10;
      long[][] rtt = new long[engines.length][0];
      double[][] ratios = new double[engines.length][rounds];
      // a line every few seconds on stderr: the run takes the better part of a minute
      ProgressLine progress =
          new ProgressLine(
              spec.commandLine().getErr(),
              "async-engine-load",
              "engine rounds",
              (long) rounds * engines.length);
      for (int round = 0; round < rounds; round++) {
        long base = 0;
        for (int e = 0; e < engines.length; e++) {
          long[] r = LoopbackLoad.pingPong(client, pdp[e].address(), opn, req, roundTrips / rounds);
          progress.done(1);
          rtt[e] = PdpLoad.concat(rtt[e], r);
          long median = Quantiles.at(r, 0.5);
          base = e == 0 ? median : base;
          ratios[e][round] = (double) median / base;
        }
      }
      out.printf(
          "round trip, one connection, one outstanding, %d rounds alternating (us):%n", rounds);
      out.printf("  %-28s %9s %9s %9s %s%n", "", "mean", "median", "p99", "  vs rules");
      for (int e = 0; e < engines.length; e++) {
        Stats s = Stats.of(ratios[e]);
        out.println(PdpLoad.rowText(engines[e], rtt[e]));
        if (e > 0) {
          out.printf(
              "  %-28s median of round ratios %.2fx (%.2fx to %.2fx)%n",
              "", s.median(), s.min(), s.max());
        }
      }
      out.printf(
          "%nthroughput, %d connections x %d outstanding, %d s each:%n",
          load.connections, load.outstanding, load.seconds);
      double first = 0;
      for (int e = 0; e < engines.length; e++) {
        double t =
            LoopbackLoad.throughput(
                client,
                pdp[e].address(),
                opn,
                req.length,
                load.connections,
                load.outstanding,
                load.seconds);
        first = e == 0 ? t : first;
        out.printf("  %-28s %,12.0f decisions/s (%.2fx)%n", engines[e], t, t / first);
      }
      out.flush();
      return 0;
    } catch (ConfigException e) {
      spec.commandLine().getErr().println("error: " + e.getMessage());
      return 2;
    } finally {
      for (PdpServer p : pdp) {
        if (p != null) {
          p.close();
        }
      }
      client.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
