package dev.portcullis.bench;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Cli;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.Programs;
import dev.portcullis.support.ProgressLine;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Trying a fleet on one machine (README, docs/fleet.md): a 3-node ZooKeeper ensemble in this
 * process (for trying out only: production points at its own ensemble), three PDPs sharing MLS
 * sessions, users logged in through two of them, a few thousand PEPs spread over all three, each
 * deciding an ACCESS — most on a PDP that does not hold the user's session; then one PDP stops
 * half-way and its PEPs go on to the others. Prints what happened.
 */
@Command(
    name = "fleet-demo",
    mixinStandardHelpOptions = true,
    description = "Run a 3-PDP fleet on ZooKeeper on loopback, stop one PDP, show the failover.")
public final class FleetDemo implements Callable<Integer> {
  @Option(
      names = "--peps",
      defaultValue = "3000",
      description = "PEPs spread over the three PDPs (default: ${DEFAULT-VALUE}).")
  int peps;

  @Option(
      names = "--policy",
      defaultValue = "config/policy-mls.xml",
      description = "The MLS policy (default: ${DEFAULT-VALUE}).")
  Path policy;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("fleet-demo", new FleetDemo()).execute(args));
  }

  /** The process's open-file limit, or 0 where the JVM cannot say. */
  static long openFileLimit() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u
        ? u.getMaxFileDescriptorCount()
        : 0;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (!Files.isRegularFile(policy)) {
      spec.commandLine().getErr().println("error: --policy " + policy + ": no such file");
      return 2;
    }
    if (peps < 3) {
      spec.commandLine().getErr().println("error: --peps " + peps + " (expected: 3 or more)");
      return 2;
    }
    long limit = openFileLimit();
    if (limit > 0 && 2L * peps + 500 > limit) {
      // both ends of every PEP's connection are in this process
      spec.commandLine()
          .getErr()
          .printf(
              "error: --peps %d needs about %d open files; this process may open %d (ulimit -n)%n",
              peps, 2L * peps + 500, limit);
      return 2;
    }
    Path dir = Files.createTempDirectory("portcullis-fleet-demo");
    Files.copy(policy, dir.resolve("policy-mls.xml"));
    DurableFiles.write(
        dir.resolve("zk.secret"), "portcullis:fleet-demo\n".getBytes(StandardCharsets.US_ASCII));
    EventLoopGroup loops = Transport.NIO.group(2);
    List<AutoCloseable> open = new ArrayList<>();
    TestingCluster zk = new TestingCluster(3);
    try {
      out.println("starting a ZooKeeper ensemble of 3 in this process (a few seconds)...");
      out.flush();
      zk.start();
      out.printf("ZooKeeper ensemble of 3 (in this process) on %s%n", zk.getConnectString());
      PdpServer[] pdp = new PdpServer[3];
      for (int k = 0; k < 3; k++) {
        pdp[k] = FleetBench.pdp(dir, "demo-" + k, zk.getConnectString(), "cached");
        open.add(pdp[k]);
        out.printf("PDP %d on %s%n", k, pdp[k].address());
      }
      // alice logs in through a terminal on PDP 0, bob through one on PDP 1
      String[] users = {"alice", "bob"};
      for (int u = 0; u < 2; u++) {
        FleetBench.Pep t = FleetBench.Pep.open(pdp[u].address(), "tpe-" + users[u]);
        open.add(t.client());
        t.ask("login", AccessRequest.login(users[u], 2, List.of("NATO")));
        out.printf("%s logged in at SECRET through PDP %d%n", users[u], u);
      }
      Thread.sleep(200); // the other PDPs' views follow within milliseconds
      long[] opened = new long[peps];
      List<PepClient> clients = new ArrayList<>();
      List<CompletableFuture<PepDecision>> first = new ArrayList<>();
      Context ctx = new Context(Context.R_INCOMING, 0);
      PrintWriter err = spec.commandLine().getErr();
      ProgressLine opening = new ProgressLine(err, "fleet-demo", "PEPs opened", peps);
      for (int i = 0; i < peps; i++) {
        int n = i;
        // home PDP i % 3, the other two in turns, so a stopped PDP's PEPs spread over the rest
        int second = (i % 3 + 1 + (i / 3) % 2) % 3;
        int third = 3 - i % 3 - second;
        List<InetSocketAddress> order =
            List.of(pdp[i % 3].address(), pdp[second].address(), pdp[third].address());
        PepClient c =
            PepClient.builder()
                .pdps(order)
                .pepId("proxy-" + i)
                .clientType(FleetBench.MLS)
                .eventLoop(loops.next())
                .reconnect(Duration.ofMillis(100), Duration.ofSeconds(2))
                .listener(
                    new PepListener() {
                      @Override
                      public void opened(InetSocketAddress at, int keepAlive) {
                        opened[n] = System.nanoTime();
                      }
                    })
                .build();
        clients.add(c);
        open.add(c);
        c.open().join();
        opening.done(1);
        first.add(
            c.request(
                "read", ctx, AccessRequest.access(users[i % 2], "intel-db", AccessMode.READ)));
      }
      int allowed = 0;
      int federated = 0;
      for (int i = 0; i < peps; i++) {
        if (first.get(i).join().granted()) {
          allowed++;
          federated += (i % 3) != (i % 2) ? 1 : 0; // decided on a PDP not holding the session
        }
      }
      out.printf(
          "%n%d PEPs spread over the 3 PDPs; ACCESS (read intel-db at SECRET) allowed: %d of %d,"
              + " %d of them on a PDP that does not hold the user's session%n",
          peps, allowed, peps, federated);
      out.printf("%nstopping PDP 2 (it holds %d PEPs)...%n", peps / 3);
      long t0 = System.nanoTime();
      pdp[2].close();
      List<Long> rehomed = new ArrayList<>();
      ProgressLine rehoming = new ProgressLine(err, "fleet-demo", "PEPs re-homed", peps / 3);
      for (int i = 2; i < peps; i += 3) {
        PepClient c = clients.get(i);
        while (!c.isOpen() || c.pdp().equals(pdp[2].address()) || opened[i] < t0) {
          if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalStateException("PEP " + i + " not re-homed in 60 s");
          }
          Thread.sleep(1);
        }
        rehomed.add(opened[i] - t0);
        rehoming.done(1);
      }
      int after = 0;
      int[] perPdp = new int[3];
      for (int i = 0; i < peps; i++) {
        PepClient c = clients.get(i);
        PepDecision d = null;
        for (int k = 0; k < 2000 && d == null; k++) {
          d = c.installed().join().get("read");
          if (d == null) {
            Thread.sleep(2);
          }
        }
        after += d != null && d.granted() ? 1 : 0;
        for (int k = 0; k < 3; k++) {
          perPdp[k] += c.pdp().equals(pdp[k].address()) ? 1 : 0;
        }
      }
      long[] r = rehomed.stream().mapToLong(Long::longValue).toArray();
      out.printf(
          "%d PEPs re-homed: p50 %.1f ms, p99 %.1f ms, last %.1f ms after the stop%n",
          r.length,
          Quantiles.at(r, 0.5) / 1e6,
          Quantiles.at(r, 0.99) / 1e6,
          Quantiles.at(r, 1.0) / 1e6);
      out.printf("PEPs now on PDP 0: %d, PDP 1: %d, PDP 2: %d%n", perPdp[0], perPdp[1], perPdp[2]);
      out.printf(
          "ACCESS allowed after the failover: %d of %d (before: %d)%n", after, peps, allowed);
      out.flush();
      return allowed == after ? 0 : 1;
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close(); // the PDPs and PEPs before the ensemble under them
      }
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      zk.close();
      Scratch.delete(dir);
    }
  }
}
