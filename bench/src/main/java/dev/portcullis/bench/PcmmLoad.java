package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.pcmm.Gate;
import dev.portcullis.pcmm.GateRequest;
import dev.portcullis.pcmm.PolicyServer;
import dev.portcullis.pcmm.SubscriberLimits;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The PacketCable Multimedia policy server against simulated CMTSs on loopback, beside the PDP:
 *
 * <ol>
 *   <li>Gate-Set to Gate-Set-Ack round trips (one outstanding, each gate deleted untimed before the
 *       next) in rounds alternating with REQ/DEC round trips against a PDP on the same machine;
 *   <li>{@code --gates} gates over {@code --cmts} CMTSs set, queried and deleted, at most 512
 *       outstanding: the time of each, and the gates lost or set twice (both must be 0);
 *   <li>a policy change that deletes {@code --revoke} gates (beside as many it keeps): the time
 *       from the change until every CMTS acknowledged every Gate-Delete.
 * </ol>
 */
@Command(
    name = "pcmm-load",
    mixinStandardHelpOptions = true,
    description =
        "PCMM policy server: Gate-Set round trips beside REQ/DEC, mass gates, revocation.")
public final class PcmmLoad implements Callable<Integer> {
  @Mixin LoadOptions load = new LoadOptions();

  @Option(names = "--cmts", defaultValue = "50", description = "Simulated CMTSs.")
  int cmts;

  @Option(names = "--gates", defaultValue = "10000", description = "Gates set, queried, deleted.")
  int gates;

  @Option(names = "--round-trips", defaultValue = "20000", description = "Round trips a side.")
  int roundTrips;

  @Option(names = "--rounds", defaultValue = "8", description = "Alternating rounds.")
  int rounds;

  @Option(
      names = "--warm-up-seconds",
      defaultValue = "60",
      description =
          "At most this long warming up before the round trips, until a pass leaves the JIT"
              + " quiet (default: ${DEFAULT-VALUE}).")
  int warmUpSeconds;

  @Option(names = "--revoke", defaultValue = "1000", description = "Gates a policy change ends.")
  int revoke;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("pcmm-load", new PcmmLoad()).execute(args));
  }

  static GateRequest request(int subscriber, String serviceClass) {
    Inet4Address sub = ip4(0x0a000000 | (subscriber & 0xFFFFFF));
    return new GateRequest(
        new PcmmObject.Amid(1, 7),
        new PcmmObject.SubscriberId(sub),
        new PcmmObject.GateSpec(PcmmObject.GateSpec.UPSTREAM, 0xb8, 0xfc, 1, 200, 300, 0, 0),
        new TrafficProfile.ServiceClassName(TrafficProfile.AUTHORIZED, serviceClass),
        List.of(new PcmmClassifier.Classifier(17, 0, 0, sub, ip4(0xc000020a), 0, 5060, 64)),
        List.of());
  }

  private static Inet4Address ip4(int a) {
    try {
      return (Inet4Address)
          InetAddress.getByAddress(
              new byte[] {(byte) (a >> 24), (byte) (a >> 16), (byte) (a >> 8), (byte) a});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    SubscriberLimits limits = new SubscriberLimits(1_000_000, Set.of());
    PolicyServer.Settings settings =
        new PolicyServer.Settings(
            30, Duration.ofSeconds(30), Duration.ofMillis(50), Duration.ofSeconds(1));
    EventLoopGroup clientGroup = Transport.EPOLL.group(1);
    try (CmtsSimulator sim = new CmtsSimulator(cmts, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), limits, settings);
        PdpServer pdp = PdpServer.start(PdpLoad.config("pcmm-load", "rules", load.policy), 1)) {
      ps.ready().get(60, TimeUnit.SECONDS);
      out.printf("%d simulated CMTSs ready; a PDP beside them for REQ/DEC%n", cmts);
      out.flush();

      // 1. round trips, alternating
      byte[] opn = CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "load"));
      byte[] req = PdpLoad.request(0);
      String first = ps.cmtss().get(0);
      long[] cops = new long[0];
      long[] library = new long[0];
      long[] pcmm = new long[0];
      double[] byLibrary = new double[rounds];
      double[] byRaw = new double[rounds];
      long libraryCpu = 0;
      long pcmmCpu = 0;
      try (PepClient pep =
          PepClient.builder()
              .pdp(pdp.address())
              .pepId("pcmm-load")
              .requestTimeout(Duration.ofSeconds(30))
              .build()) {
        pep.open().get(30, TimeUnit.SECONDS);
        int pass = Math.max(1, roundTrips / rounds);
        JitWarmUp.Result warm =
            JitWarmUp.run(
                () -> {
                  LoopbackLoad.pingPong(clientGroup, pdp.address(), opn, req, pass);
                  pepRoundTrips(pep, pass);
                  gateRoundTrips(ps, first, pass);
                },
                2,
                warmUpSeconds * 1000L);
        out.println(warm.describe());
        for (int r = 0; r < rounds; r++) {
          long[] raw =
              LoopbackLoad.pingPong(clientGroup, pdp.address(), opn, req, roundTrips / rounds);
          // CPU of the whole JVM while one side works: its two event loops (and the JIT, the GC)
          long cpu = Throughput.thisProcessCpuNanos();
          long[] lib = pepRoundTrips(pep, roundTrips / rounds);
          libraryCpu += Throughput.thisProcessCpuNanos() - cpu;
          cpu = Throughput.thisProcessCpuNanos();
          long[] gate = gateRoundTrips(ps, first, roundTrips / rounds);
          pcmmCpu += Throughput.thisProcessCpuNanos() - cpu;
          byLibrary[r] = (double) median(gate) / median(lib);
          byRaw[r] = (double) median(gate) / median(raw);
          cops = PdpLoad.concat(cops, raw);
          library = PdpLoad.concat(library, lib);
          pcmm = PdpLoad.concat(pcmm, gate);
        }
      }
      out.printf("round trip, one outstanding, %d rounds alternating (us):%n", rounds);
      out.printf("  %-28s %9s %9s %9s%n", "", "mean", "median", "p99");
      out.println(PdpLoad.rowText("REQ -> DEC, raw client", cops));
      out.println(PdpLoad.rowText("REQ -> DEC, PepClient", library));
      out.println(PdpLoad.rowText("Gate-Set -> Gate-Set-Ack", pcmm));
      Stats lib = Stats.of(byLibrary);
      Stats raw = Stats.of(byRaw);
      out.printf(
          Locale.ROOT,
          "  Gate-Set / REQ-DEC via PepClient, median of the rounds' median ratios: %.2fx"
              + " (95 %% interval %.2f-%.2fx, rounds %.2f-%.2fx); / raw client: %.2fx (%.2f-%.2fx)%n",
          lib.median(),
          lib.medianLow(),
          lib.medianHigh(),
          lib.min(),
          lib.max(),
          raw.median(),
          raw.medianLow(),
          raw.medianHigh());
      // a Gate-Set round trip is followed by an untimed Gate-Delete: two exchanges a sample
      double libraryPer = (double) libraryCpu / library.length;
      double pcmmPer = (double) pcmmCpu / (2.0 * pcmm.length);
      out.printf(
          Locale.ROOT,
          "  CPU per exchange, both ends (JVM): REQ/DEC via PepClient %.1f us,"
              + " Gate-Set or Gate-Delete %.1f us (%.2fx)%n",
          libraryPer / 1e3,
          pcmmPer / 1e3,
          pcmmPer / libraryPer);
      out.flush();

      // 2. many gates over many CMTSs
      long createdBefore = sim.cmtss().stream().mapToLong(CmtsSimulator.Cmts::created).sum();
      List<String> names = ps.cmtss();
      List<CompletableFuture<Gate>> sets = new ArrayList<>(gates);
      Semaphore window = new Semaphore(512);
      long t0 = System.nanoTime();
      for (int i = 0; i < gates; i++) {
        window.acquire();
        CompletableFuture<Gate> f = ps.set(names.get(i % names.size()), request(i, "VoIP_UP"));
        f.whenComplete((g, e) -> window.release());
        sets.add(f);
      }
      Set<String> distinct = new HashSet<>();
      int failed = 0;
      for (CompletableFuture<Gate> f : sets) {
        try {
          distinct.add(f.get(60, TimeUnit.SECONDS).key());
        } catch (java.util.concurrent.ExecutionException e) {
          failed++;
        }
      }
      long setNs = System.nanoTime() - t0;
      long created =
          sim.cmtss().stream().mapToLong(CmtsSimulator.Cmts::created).sum() - createdBefore;
      t0 = System.nanoTime();
      List<CompletableFuture<?>> infos = new ArrayList<>();
      int[] infoOk = {0};
      for (Gate g : ps.gates()) {
        window.acquire();
        infos.add(
            ps.info(g)
                .whenComplete(
                    (m, e) -> {
                      window.release();
                      if (m != null && m.command() == GateCommand.GATE_INFO_ACK) {
                        synchronized (infoOk) {
                          infoOk[0]++;
                        }
                      }
                    }));
      }
      for (CompletableFuture<?> f : infos) {
        f.handle((x, e) -> null).get(60, TimeUnit.SECONDS);
      }
      long infoNs = System.nanoTime() - t0;
      t0 = System.nanoTime();
      List<CompletableFuture<Void>> deletes = new ArrayList<>();
      for (Gate g : ps.gates()) {
        window.acquire();
        deletes.add(ps.delete(g, "load").whenComplete((x, e) -> window.release()));
      }
      int notDeleted = 0;
      for (CompletableFuture<Void> f : deletes) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          notDeleted++;
        }
      }
      long deleteNs = System.nanoTime() - t0;
      out.printf(
          Locale.ROOT,
          "%d gates over %d CMTSs, 512 outstanding:%n"
              + "  set      %7.0f ms (%,.0f gates/s): %d acknowledged, %d refused, %d set on the CMTSs,"
              + " %d distinct -> lost %d, set twice %d%n"
              + "  queried  %7.0f ms (%,.0f gates/s): %d Gate-Info-Acks%n"
              + "  deleted  %7.0f ms (%,.0f gates/s): %d not deleted; left on the CMTSs %d, held %d%n",
          gates,
          cmts,
          setNs / 1e6,
          gates / (setNs / 1e9),
          sets.size() - failed,
          failed,
          created,
          distinct.size(),
          gates - distinct.size(),
          created - distinct.size(),
          infoNs / 1e6,
          distinct.size() / (infoNs / 1e9),
          infoOk[0],
          deleteNs / 1e6,
          distinct.size() / (deleteNs / 1e9),
          notDeleted,
          sim.gates(),
          ps.gates().size());
      out.flush();

      // 3. a policy change ending `revoke` gates beside as many it keeps
      List<CompletableFuture<Gate>> more = new ArrayList<>();
      for (int i = 0; i < 2 * revoke; i++) {
        window.acquire();
        more.add(
            ps.set(names.get(i % names.size()), request(i, i % 2 == 0 ? "VoIP_UP" : "BE"))
                .whenComplete((g, e) -> window.release()));
      }
      for (CompletableFuture<Gate> f : more) {
        f.get(60, TimeUnit.SECONDS);
      }
      t0 = System.nanoTime();
      limits.limits(1_000_000, Set.of("BE"));
      int ended = ps.reevaluate().get(60, TimeUnit.SECONDS);
      long revokeNs = System.nanoTime() - t0;
      out.printf(
          Locale.ROOT,
          "policy change: %d of %d gates deleted, every Gate-Delete-Ack in %.1f ms after the change;"
              + " %d left on the CMTSs%n",
          ended,
          2 * revoke,
          revokeNs / 1e6,
          sim.gates());
      out.flush();
      boolean clean =
          failed == 0 && created == distinct.size() && distinct.size() == gates && ended == revoke;
      return clean ? 0 : 1;
    } finally {
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static long median(long[] v) {
    long[] s = v.clone();
    java.util.Arrays.sort(s);
    return s[s.length / 2];
  }

  /**
   * {@code n} REQ/DEC round trips through the PEP library, one outstanding, each sent from the last
   * answer's callback (as the Gate-Sets are).
   */
  private static long[] pepRoundTrips(PepClient pep, int n) throws Exception {
    long[] rtt = new long[n];
    AccessRequest ar = CopsLayers.rulesRequest();
    Context ctx = new Context(Context.R_INCOMING, 0);
    CompletableFuture<Void> done = new CompletableFuture<>();
    new Object() {
      int i;

      void next() {
        long t = System.nanoTime();
        pep.request("h", ctx, ar)
            .whenComplete(
                (d, e) -> {
                  if (e != null) {
                    done.completeExceptionally(e);
                    return;
                  }
                  rtt[i++] = System.nanoTime() - t;
                  if (i == n) {
                    done.complete(null);
                  } else {
                    next();
                  }
                });
      }
    }.next();
    done.get(120, TimeUnit.SECONDS);
    return rtt;
  }

  /**
   * {@code n} Gate-Set round trips, one outstanding, each gate deleted untimed before the next; the
   * next is sent from the callback of the last answer, on the CMTS link's event loop, as the
   * REQ/DEC side's client sends from its event loop: neither side pays a hand-over between threads.
   */
  private static long[] gateRoundTrips(PolicyServer ps, String cmts, int n) throws Exception {
    long[] rtt = new long[n];
    GateRequest r = request(1, "VoIP_UP");
    CompletableFuture<Void> done = new CompletableFuture<>();
    new Object() {
      int i;

      void next() {
        long t = System.nanoTime();
        ps.set(cmts, r)
            .whenComplete(
                (g, e) -> {
                  if (e != null) {
                    done.completeExceptionally(e);
                    return;
                  }
                  rtt[i++] = System.nanoTime() - t;
                  ps.delete(g, "round trip")
                      .whenComplete(
                          (x, e2) -> {
                            if (e2 != null) {
                              done.completeExceptionally(e2);
                            } else if (i == n) {
                              done.complete(null);
                            } else {
                              next();
                            }
                          });
                });
      }
    }.next();
    done.get(120, TimeUnit.SECONDS);
    return rtt;
  }
}
