package dev.portcullis.bench;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Cli;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The fleet's costs, side by side in one run on loopback (docs/fleet.md, docs/benchmarks.md): a
 * 3-node ZooKeeper ensemble in this process, a PDP alone and three PDPs of one fleet, PEPs on each.
 * Measures the ACCESS round trip when the PDP holds the subject's session and when another PDP does
 * (cached and linearizable), the staleness of the cached mode (LOGOUT or CHANGE_LEVEL sent to PDP A
 * until PDP B's unsolicited Remove reaches its PEP), and pipelined decisions/s on a fleet PDP
 * against a PDP alone. The ensemble is for measuring only; production points at its own.
 */
@Command(
    name = "fleet-bench",
    mixinStandardHelpOptions = true,
    description = "Measure a PDP fleet on ZooKeeper: federated decision latency, staleness.")
public final class FleetBench implements Callable<Integer> {
  static final int MLS = 0xC0A6;

  @Option(
      names = "--round-trips",
      defaultValue = "4000",
      description = "Measured ACCESS round trips per cell (default: ${DEFAULT-VALUE}).")
  int roundTrips;

  @Option(
      names = "--changes",
      defaultValue = "200",
      description = "Measured session changes per staleness cell (default: ${DEFAULT-VALUE}).")
  int changes;

  @Option(
      names = "--decisions",
      defaultValue = "40000",
      description = "Decisions per throughput cell (default: ${DEFAULT-VALUE}).")
  int decisions;

  @Option(
      names = "--failover-peps",
      defaultValue = "1000",
      description =
          "PEPs on the PDP that is stopped in the failover cell (default: ${DEFAULT-VALUE}).")
  int failoverPeps;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Rounds the cells take turns in (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--policy",
      defaultValue = "config/policy-mls.xml",
      description = "The MLS policy (default: ${DEFAULT-VALUE}).")
  Path policy;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("fleet-bench", new FleetBench()).execute(args));
  }

  /** A PEP whose unsolicited decisions are queued with their arrival time. */
  record Pep(PepClient client, BlockingQueue<long[]> pushed) {
    static Pep open(InetSocketAddress pdp, String id) {
      BlockingQueue<long[]> q = new LinkedBlockingQueue<>();
      PepClient c =
          PepClient.builder()
              .pdp(pdp)
              .pepId(id)
              .clientType(MLS)
              .listener(
                  new PepListener() {
                    @Override
                    public void decisionChanged(String handle, PepDecision d) {
                      q.add(new long[] {System.nanoTime(), d.granted() ? 1 : 0});
                    }
                  })
              .build();
      c.open().join();
      return new Pep(c, q);
    }

    boolean ask(String handle, AccessRequest r) {
      return client.request(handle, new Context(Context.R_INCOMING, 0), r).join().granted();
    }

    /** Waits for the next unsolicited decision that is {@code granted}; its arrival time. */
    long awaitPushed(boolean granted) throws InterruptedException {
      while (true) {
        long[] e = pushed.poll(10, TimeUnit.SECONDS);
        if (e == null) {
          throw new IllegalStateException("no unsolicited decision in 10 s");
        }
        if ((e[1] == 1) == granted) {
          return e[0];
        }
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (!Files.isRegularFile(policy)) {
      spec.commandLine().getErr().println("error: --policy " + policy + ": no such file");
      return 2;
    }
    Path dir = Files.createTempDirectory("portcullis-fleet-bench");
    Files.copy(policy, dir.resolve("policy-mls.xml"));
    DurableFiles.write(
        dir.resolve("zk.secret"), "portcullis:fleet-bench\n".getBytes(StandardCharsets.US_ASCII));
    try (TestingCluster zk = new TestingCluster(3)) {
      zk.start();
      return measure(zk, dir, out);
    } finally {
      Scratch.delete(dir);
    }
  }

  /** A table of rows {name, nanoseconds[]}: p50, p99 and max in milliseconds. */
  private static void millis(PrintWriter out, String first, Object[][] rows) {
    out.printf("%-46s %10s %10s %10s%n", first, "p50 ms", "p99 ms", "max ms");
    for (Object[] row : rows) {
      long[] s = (long[]) row[1];
      out.printf(
          "%-46s %10.2f %10.2f %10.2f%n",
          row[0],
          Quantiles.at(s, 0.5) / 1e6,
          Quantiles.at(s, 0.99) / 1e6,
          Quantiles.at(s, 1.0) / 1e6);
    }
  }

  private int measure(TestingCluster zk, Path dir, PrintWriter out) throws Exception {
    List<AutoCloseable> open = new ArrayList<>();
    try {
      out.printf("ZooKeeper ensemble of 3 on %s%n", zk.getConnectString());
      PdpServer alone = pdp(dir, "alone", null, "cached");
      PdpServer a = pdp(dir, "a", zk.getConnectString(), "cached");
      PdpServer b = pdp(dir, "b", zk.getConnectString(), "cached");
      PdpServer c = pdp(dir, "c", zk.getConnectString(), "linearizable");
      open.addAll(List.of(alone, a, b, c));
      Pep termA = Pep.open(a.address(), "tpe-a");
      Pep atAlone = Pep.open(alone.address(), "proxy-alone");
      Pep atA = Pep.open(a.address(), "proxy-a");
      Pep atB = Pep.open(b.address(), "proxy-b");
      Pep atC = Pep.open(c.address(), "proxy-c");
      for (Pep p : List.of(termA, atAlone, atA, atB, atC)) {
        open.add(p.client());
      }
      AccessRequest read = AccessRequest.access("alice", "intel-db", AccessMode.READ);
      // a PDP alone keeps sessions per PEP: the service's PEP logs in itself
      atAlone.ask("login", AccessRequest.login("alice", 2, List.of("NATO")));
      termA.ask("login", AccessRequest.login("alice", 2, List.of("NATO")));
      while (!atB.ask("probe", read)) {
        Thread.sleep(5); // B's view catches up
      }
      Map<String, Pep> cells = new LinkedHashMap<>();
      cells.put("PDP alone, session on it", atAlone);
      cells.put("fleet, cached, session on this PDP", atA);
      cells.put("fleet, cached, session on another PDP", atB);
      cells.put("fleet, linearizable, session on another PDP", atC);
      Map<String, List<Long>> rtt = new LinkedHashMap<>();
      cells.keySet().forEach(k -> rtt.put(k, new ArrayList<>()));
      int warm = Math.max(100, roundTrips / 5);
      for (Map.Entry<String, Pep> e : cells.entrySet()) {
        for (int i = 0; i < warm; i++) {
          e.getValue().ask("rtt", read);
        }
      }
      for (int round = 0; round < rounds; round++) {
        for (Map.Entry<String, Pep> e : cells.entrySet()) {
          List<Long> into = rtt.get(e.getKey());
          for (int i = 0; i < roundTrips / rounds; i++) {
            long t0 = System.nanoTime();
            if (!e.getValue().ask("rtt", read)) {
              throw new IllegalStateException(e.getKey() + ": ACCESS denied");
            }
            into.add(System.nanoTime() - t0);
          }
        }
      }
      out.printf(
          "%nACCESS round trip, one outstanding (%d per cell, %d rounds)%n", roundTrips, rounds);
      micros(out, "cell", rtt, "fleet, cached, session on this PDP");
      // staleness: a change sent to A until B's PEP has the push
      atB.pushed().clear();
      long[] logout = new long[changes];
      long[] down = new long[changes];
      long[] writeFleet = new long[changes]; // the CHANGE_LEVEL's own DEC, at its PDP
      long[] writeAlone = new long[changes];
      for (int i = 0; i < changes; i++) {
        long w0 = System.nanoTime();
        atAlone.ask("login", AccessRequest.changeLevel("alice", 1));
        writeAlone[i] = System.nanoTime() - w0;
        atAlone.ask("login", AccessRequest.changeLevel("alice", 2));
        long t0 = System.nanoTime();
        termA.ask("login", AccessRequest.changeLevel("alice", 1));
        writeFleet[i] = System.nanoTime() - t0;
        down[i] = atB.awaitPushed(false) - t0;
        termA.ask("login", AccessRequest.changeLevel("alice", 2));
        atB.awaitPushed(true);
        t0 = System.nanoTime();
        termA.ask("logout", AccessRequest.of(AccessOperation.LOGOUT, "alice"));
        logout[i] = atB.awaitPushed(false) - t0;
        termA.ask("login", AccessRequest.login("alice", 2, List.of("NATO")));
        atB.awaitPushed(true);
      }
      out.printf(
          "%nStaleness of the cached mode: change sent to PDP A until PDP B's push arrives%n");
      millis(
          out,
          "change",
          new Object[][] {{"CHANGE_LEVEL SECRET -> CONFIDENTIAL", down}, {"LOGOUT", logout}});
      out.printf(
          "%nA change's own DEC (CHANGE_LEVEL round trip at the PDP that takes it): in the fleet"
              + " it is written, then waits until the linearizable member has seen it%n");
      millis(
          out,
          "cell",
          new Object[][] {
            {"PDP alone", writeAlone}, {"fleet, a linearizable member (C)", writeFleet}
          });
      // throughput: 64 outstanding on one PDP alone and one of the fleet
      out.printf("%nDecisions/s, 64 outstanding (%d per cell, %d rounds)%n", decisions, rounds);
      double[] perSecond = new double[2];
      Pep[] tp = {atAlone, atA};
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < 2; k++) {
          perSecond[k] += pipelined(tp[k], read, decisions / rounds) / rounds;
        }
      }
      out.printf("%-46s %12.0f%n", "PDP alone (no store)", perSecond[0]);
      out.printf("%-46s %12.0f%n", "fleet PDP, cached (ZooKeeper store)", perSecond[1]);
      out.printf("%-46s %11.2fx%n", "ratio", perSecond[1] / perSecond[0]);
      failover(dir, zk.getConnectString(), b, c, read, out);
      out.flush();
      return 0;
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close();
      }
    }
  }

  /**
   * {@code failoverPeps} PEPs on a fourth PDP, each with an installed ACCESS, listing B and C after
   * it; the PDP stops; the time from the stop until each PEP's next PDP accepted it.
   */
  private void failover(
      Path dir, String zk, PdpServer b, PdpServer c, AccessRequest read, PrintWriter out)
      throws Exception {
    EventLoopGroup loops = Transport.NIO.group(2);
    List<PepClient> peps = new ArrayList<>();
    long[] opened = new long[failoverPeps];
    try {
      PdpServer d = pdp(dir, "d", zk, "cached");
      for (int i = 0; i < failoverPeps; i++) {
        int n = i;
        PepClient p =
            PepClient.builder()
                .pdps(
                    List.of(
                        d.address(),
                        i % 2 == 0 ? b.address() : c.address(),
                        i % 2 == 0 ? c.address() : b.address()))
                .pepId("failover-" + i)
                .clientType(MLS)
                .eventLoop(loops.next())
                .reconnect(Duration.ofMillis(100), Duration.ofSeconds(2))
                .listener(
                    new PepListener() {
                      @Override
                      public void opened(InetSocketAddress pdp, int keepAlive) {
                        opened[n] = System.nanoTime();
                      }
                    })
                .build();
        peps.add(p);
        p.open().join();
        if (!p.request("read", new Context(Context.R_INCOMING, 0), read).join().granted()) {
          throw new IllegalStateException("failover PEP " + i + ": ACCESS denied");
        }
      }
      long t0 = System.nanoTime();
      d.close();
      long[] rehomed = new long[failoverPeps];
      for (int i = 0; i < failoverPeps; i++) {
        PepClient p = peps.get(i);
        while (!p.isOpen() || p.pdp().equals(d.address()) || opened[i] < t0) {
          if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalStateException("PEP " + i + " not re-homed in 60 s");
          }
          Thread.sleep(1);
        }
        rehomed[i] = opened[i] - t0;
      }
      int same = 0;
      for (PepClient p : peps) {
        Boolean g = null;
        for (int k = 0; k < 1000 && g == null; k++) {
          PepDecision dd = p.installed().join().get("read");
          g = dd == null ? null : dd.granted();
          if (g == null) {
            Thread.sleep(2);
          }
        }
        same += Boolean.TRUE.equals(g) ? 1 : 0;
      }
      out.printf(
          "%nFailover: %d PEPs on a PDP that stops, each listing two other members after it%n",
          failoverPeps);
      out.printf(
          "%-46s %10.2f %10.2f %10.2f%n",
          "re-homed (ms from the stop): p50 / p99 / max",
          Quantiles.at(rehomed, 0.5) / 1e6,
          Quantiles.at(rehomed, 0.99) / 1e6,
          Quantiles.at(rehomed, 1.0) / 1e6);
      out.printf(
          "%-46s %10d of %d%n", "ACCESS decided again the same (allowed)", same, failoverPeps);
    } finally {
      for (PepClient p : peps) {
        p.close();
      }
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** Decisions per second with 64 handles kept busy. */
  static double pipelined(Pep p, AccessRequest r, int n) {
    int window = 64;
    CompletableFuture<?>[] slots = new CompletableFuture<?>[window];
    Context ctx = new Context(Context.R_INCOMING, 0);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      int s = i % window;
      if (slots[s] != null) {
        slots[s].join();
      }
      slots[s] = p.client().request("tp" + s, ctx, r);
    }
    for (CompletableFuture<?> f : slots) {
      if (f != null) {
        f.join();
      }
    }
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  /**
   * A table of cells {name: nanoseconds}: p50 and p99 in microseconds, and each p50 over the {@code
   * base} cell's.
   */
  static void micros(PrintWriter out, String first, Map<String, List<Long>> cells, String base) {
    out.printf("%-46s %10s %10s %12s%n", first, "p50 us", "p99 us", "p50 ratio");
    double b = Quantiles.at(array(cells.get(base)), 0.5);
    for (Map.Entry<String, List<Long>> e : cells.entrySet()) {
      long[] s = array(e.getValue());
      out.printf(
          "%-46s %10.1f %10.1f %11.2fx%n",
          e.getKey(),
          Quantiles.at(s, 0.5) / 1e3,
          Quantiles.at(s, 0.99) / 1e3,
          Quantiles.at(s, 0.5) / b);
    }
  }

  static long[] array(List<Long> l) {
    long[] a = new long[l.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = l.get(i);
    }
    return a;
  }

  static PdpServer pdp(Path dir, String name, String zk, String consistency) throws Exception {
    Path cfg = dir.resolve("pdp-" + name + ".xml");
    Files.writeString(
        cfg,
        "<pdp>"
            + (zk == null
                ? ""
                : "<state store=\"zookeeper\" connect=\""
                    + zk
                    + "\" namespace=\"/portcullis/bench\" session-timeout=\"PT10S\""
                    + " auth-file=\"zk.secret\"/>")
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<limits max-messages-per-second=\"10000000\" max-connections=\"8192\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\""
            + " consistency=\""
            + consistency
            + "\"/><stats interval=\"PT1H\"/></pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }
}
