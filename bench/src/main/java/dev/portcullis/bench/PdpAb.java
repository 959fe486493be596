package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The decision path's A/B: the PDP of a git ref (A) beside this build's (B), each its own process
 * with the same minimal configuration and policy, loaded by the same generator in rounds that
 * alternate which goes first (A B, B A, ...), so that a noisy machine's drift falls on both. Per
 * round: the pipelined rate (the C generator, {@code --connections} x {@code --outstanding}), the
 * PDP process's CPU per answer, and the median REQ/DEC round trip (one outstanding); then B/A of
 * each, with the median's 95 % interval over the rounds (bootstrap).
 *
 * <p>With {@code --ref}, A is built from that ref in a scratch git worktree ({@code mvn package} of
 * pdp-server and what it needs, tests skipped) and the worktree removed afterwards; {@code --a-jar}
 * names a pdp-server.jar built already instead. B is this tree's {@code
 * pdp-server/target/pdp-server.jar}, or {@code --b-jar}. docs/benchmarks.md says when to quote it.
 */
@Command(
    name = "pdp-ab",
    mixinStandardHelpOptions = true,
    description = "A git ref's PDP (A) beside this build's (B): rate, CPU per answer, round trip.")
public final class PdpAb implements java.util.concurrent.Callable<Integer> {
  @Mixin LoadOptions load = new LoadOptions();

  @Option(names = "--ref", description = "Git ref of A, built in a scratch worktree.")
  String ref;

  @Option(names = "--a-jar", description = "A's pdp-server.jar, built already (instead of --ref).")
  Path aJar;

  @Option(
      names = "--b-jar",
      defaultValue = "pdp-server/target/pdp-server.jar",
      description = "B's pdp-server.jar (default: ${DEFAULT-VALUE}).")
  Path bJar;

  @Option(
      names = "--config",
      description =
          "A PDP configuration both sides run instead of the minimal one (its directory is copied,"
              + " its <listen> moved to a free port): what a configuration's features cost.")
  Path config;

  @Option(
      names = "--a-transport",
      description =
          "A's Netty transport (epoll or nio; default: the jar's own choice): with"
              + " --a-jar and --b-jar the same jar, what a transport costs.")
  String aTransport;

  @Option(names = "--b-transport", description = "B's Netty transport, as --a-transport.")
  String bTransport;

  @Option(
      names = "--rounds",
      defaultValue = "6",
      description = "Rounds (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--warm",
      defaultValue = "12",
      description =
          "Seconds each PDP is loaded, in turns, before the rounds count (default:"
              + " ${DEFAULT-VALUE}: the JIT compiles a PDP's path in its first ~10 s of load).")
  int warmSeconds;

  @Option(
      names = "--round-trips",
      defaultValue = "5000",
      description = "REQ/DEC round trips a side and round (default: ${DEFAULT-VALUE}).")
  int roundTrips;

  @Option(
      names = "--jfr",
      description =
          "A directory for a JFR recording of each PDP (a.jfr, b.jfr; the 'profile' settings,"
              + " which cost both sides alike): where each side's time goes, read with"
              + " 'jfr print --events jdk.ExecutionSample'.")
  Path jfr;

  /** One side's measurements, a value per round. */
  private static final class Side {
    final String name;
    final double[] rate;
    final double[] cpu;
    final double[] rtt;

    Side(String name, int rounds) {
      this.name = name;
      this.rate = new double[rounds];
      this.cpu = new double[rounds];
      this.rtt = new double[rounds];
    }
  }

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(new CommandLine(new PdpAb()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if ((ref == null) == (aJar == null)) {
      System.err.println("pdp-ab: give A as --ref REF (built here) or --a-jar PATH, one of them");
      return 2;
    }
    if (!Files.isRegularFile(bJar)) {
      System.err.println(
          "pdp-ab: no "
              + bJar
              + ": build this tree first (mvn -B -q package -DskipTests -pl pdp-server -am)");
      return 2;
    }
    for (String t : new String[] {aTransport, bTransport}) {
      String why =
          t == null
              ? null
              : Transport.parse(t) == null ? "not epoll or nio" : Transport.parse(t).unavailable();
      if (why != null) {
        System.err.println("pdp-ab: transport " + t + ": " + why);
        return 2;
      }
    }
    String noC = CPrograms.why();
    if (noC != null) {
      System.err.println("pdp-ab: the C load generator is needed here and cannot be built: " + noC);
      return 2;
    }
    Path scratch = Files.createTempDirectory("pdp-ab");
    Path worktree = scratch.resolve("a-src");
    List<Process> pdps = new ArrayList<>();
    EventLoopGroup group = Transport.EPOLL.group(1);
    try {
      Path a = aJar;
      if (ref != null) {
        a = build(ref, worktree);
        if (a == null) {
          return 1;
        }
      }
      Path policy = load.policy.toAbsolutePath();
      InetSocketAddress atA = start(a, "a", aTransport, policy, config, scratch, pdps);
      InetSocketAddress atB = start(bJar, "b", bTransport, policy, config, scratch, pdps);
      byte[] opn = CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "ab"));
      byte[] req = PdpLoad.request(0);
      ready(group, atA, opn, req, pdps.get(0), scratch.resolve("a.log"));
      ready(group, atB, opn, req, pdps.get(1), scratch.resolve("b.log"));
      CPrograms c = CPrograms.build(scratch);
      byte[] requests = LoopbackLoad.requests(load.outstanding, req.length);
      InetSocketAddress[] to = {atA, atB};
      Side[] sides = {
        new Side(
            (ref != null ? ref + " (built at " + a + ")" : aJar.toString()) + on(aTransport),
            rounds),
        new Side(bJar + on(bTransport), rounds)
      };
      // warm both, measured for nothing: the JIT compiles the whole path in a PDP's first ~10 s
      // under load (PdpLoad's climb to its plateau), so at least that, in turns
      for (int w = 0; w < Math.max(1, (warmSeconds + load.seconds - 1) / load.seconds); w++) {
        for (int s = 0; s < 2; s++) {
          c.rate(to[s], opn, requests, load.outstanding, load.connections, 0, load.seconds * 1000L);
          LoopbackLoad.pingPong(group, to[s], opn, req, roundTrips);
        }
      }
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          int s = (r % 2 == 0) ? k : 1 - k; // A B, B A, ...
          long cpu0 = cpuNanos(pdps.get(s));
          CPrograms.Load l =
              c.rate(
                  to[s],
                  opn,
                  requests,
                  load.outstanding,
                  load.connections,
                  500,
                  load.seconds * 1000L);
          long cpu1 = cpuNanos(pdps.get(s));
          sides[s].rate[r] = l.perSecond();
          sides[s].cpu[r] = (cpu1 - cpu0) / (double) Math.max(1, l.answers());
          long[] rtt = LoopbackLoad.pingPong(group, to[s], opn, req, roundTrips);
          sides[s].rtt[r] = dev.portcullis.support.Quantiles.at(rtt, 0.5) / 1000.0;
        }
        System.out.printf(
            Locale.ROOT,
            "round %d: A %,.0f/s %,.0f ns %.1f us | B %,.0f/s %,.0f ns %.1f us%n",
            r + 1,
            sides[0].rate[r],
            sides[0].cpu[r],
            sides[0].rtt[r],
            sides[1].rate[r],
            sides[1].cpu[r],
            sides[1].rtt[r]);
      }
      report(sides);
      return 0;
    } finally {
      for (Process p : pdps) {
        Children.stop(p, Duration.ofSeconds(10));
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
      if (ref != null && Files.isDirectory(worktree)) {
        run(List.of("git", "worktree", "remove", "--force", worktree.toString()), null, null);
      }
      Scratch.delete(scratch);
    }
  }

  private void report(Side[] sides) {
    System.out.printf(
        "%nA = %s%nB = %s%n%d rounds alternating, %d connections x %d outstanding, %d s each;"
            + " B/A, median of the rounds [95 %% interval]:%n",
        sides[0].name, sides[1].name, rounds, load.connections, load.outstanding, load.seconds);
    line("pipelined rate", sides[0].rate, sides[1].rate, "higher is better");
    line("CPU per answer", sides[0].cpu, sides[1].cpu, "lower is better");
    line("REQ/DEC round trip (median)", sides[0].rtt, sides[1].rtt, "lower is better");
  }

  private static void line(String what, double[] a, double[] b, String better) {
    double[] q = new double[a.length];
    for (int r = 0; r < a.length; r++) {
      q[r] = b[r] / a[r];
    }
    Stats s = Stats.of(q);
    System.out.printf(
        Locale.ROOT,
        "  %-28s %.2fx [%.2fx, %.2fx]  (rounds %.2fx to %.2fx; %s)%n",
        what,
        s.median(),
        s.medianLow(),
        s.medianHigh(),
        s.min(),
        s.max(),
        better);
  }

  /** Builds pdp-server at {@code ref} in a worktree; its jar, or null after saying why not. */
  private static Path build(String ref, Path worktree) throws IOException, InterruptedException {
    System.out.println("building A (" + ref + ") in " + worktree + ": a few minutes");
    if (run(List.of("git", "worktree", "add", "--detach", worktree.toString(), ref), null, null)
        != 0) {
      System.err.println(
          "pdp-ab: git cannot check out " + ref + " (is this a clone, the ref one?)");
      return null;
    }
    Path log = worktree.resolveSibling("a-build.log");
    int rc =
        run(
            List.of(
                "mvn",
                "-B",
                "-q",
                "package",
                "-DskipTests",
                "-Dmaven.javadoc.skip=true",
                "-Dmaven.source.skip=true",
                "-Dspotless.check.skip=true",
                "-pl",
                "pdp-server",
                "-am"),
            worktree.toFile(),
            log);
    Path jar = worktree.resolve("pdp-server/target/pdp-server.jar");
    if (rc != 0 || !Files.isRegularFile(jar)) {
      System.err.println(
          "pdp-ab: building " + ref + " failed (exit " + rc + "):\n" + tail(log, 30));
      return null;
    }
    return jar;
  }

  private static String on(String transport) {
    return transport == null ? "" : " on " + transport;
  }

  /**
   * Starts the PDP of {@code jar} on a free loopback port with a minimal configuration (the access
   * client type, rules over {@code policy}; limits out of a load's way), logging to {@code
   * name.log}; on {@code transport} if not null.
   */
  private InetSocketAddress start(
      Path jar,
      String name,
      String transport,
      Path policy,
      Path config,
      Path scratch,
      List<Process> pdps)
      throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path cfg;
    if (config != null) {
      cfg = copied(config, scratch.resolve(name), port);
    } else {
      cfg = scratch.resolve(name + "-pdp.xml");
      Files.writeString(
          cfg,
          "<pdp>\n"
              + "  <listen address=\"127.0.0.1\" port=\""
              + port
              + "\"/>\n"
              + "  <limits max-handles=\"1048576\" max-messages-per-second=\"1000000000\"/>\n"
              + "  <client-type code=\"0xC0A5\" engine=\"rules\" policy=\""
              + policy
              + "\"/>\n"
              + "</pdp>\n",
          StandardCharsets.UTF_8);
    }
    Path log = scratch.resolve(name + ".log");
    List<String> command = new ArrayList<>(List.of(javaCommand(), "-Dportcullis.log.level=WARN"));
    if (transport != null) {
      command.add("-D" + Transport.PROPERTY + "=" + transport);
    }
    if (jfr != null) {
      Files.createDirectories(jfr);
      command.add(
          "-XX:StartFlightRecording=settings=profile,filename="
              + jfr.resolve(name + ".jfr").toAbsolutePath());
    }
    command.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "--config", cfg.toString()));
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    pdps.add(p);
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
  }

  /**
   * A copy of {@code config}'s directory under {@code into}/config (its relative paths resolve as
   * they did: a sibling {@code target} is made for what it writes there, such as the sample's audit
   * log), listening on {@code port} instead of what it says; the copy's pdp file.
   */
  private static Path copied(Path config, Path into, int port) throws IOException {
    Path dir = config.toAbsolutePath().getParent();
    Path copy = into.resolve("config");
    Files.createDirectories(copy);
    Files.createDirectories(into.resolve("target"));
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    Path pdp = copy.resolve(config.getFileName());
    String xml = Files.readString(pdp, StandardCharsets.UTF_8);
    String moved =
        xml.replaceFirst(
            "<listen\\s[^>]*/>", "<listen address=\"127.0.0.1\" port=\"" + port + "\"/>");
    if (moved.equals(xml)) {
      throw new IOException(config + " has no <listen .../> element to move to a free port");
    }
    Files.writeString(pdp, moved, StandardCharsets.UTF_8);
    return pdp;
  }

  /** Waits (30 s at most) until the PDP at {@code at} answers a request. */
  private static void ready(
      EventLoopGroup group, InetSocketAddress at, byte[] opn, byte[] req, Process p, Path log)
      throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        LoopbackLoad.firstAnswerLength(group, at, opn, req);
        return;
      } catch (Exception e) {
        if (!p.isAlive() || System.nanoTime() > until) {
          throw new IOException(
              "the PDP at " + at + " did not answer (" + e + "); its log:\n" + tail(log, 30), e);
        }
        Thread.sleep(200); // polling a child process's start: nothing to wait on but its port
      }
    }
  }

  private static long cpuNanos(Process p) {
    return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  private static String javaCommand() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static int run(List<String> command, File dir, Path log)
      throws IOException, InterruptedException {
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    if (dir != null) {
      b.directory(dir);
    }
    b.redirectOutput(
        log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(log.toFile()));
    return b.start().waitFor();
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
