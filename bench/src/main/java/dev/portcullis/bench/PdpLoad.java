package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Transport;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Side-by-side load measurements on loopback, in one run:
 *
 * <ol>
 *   <li>round trip: a raw TCP ping-pong of a REQ-sized message and a DEC-sized answer, then REQ/DEC
 *       round trips against the PDP, one connection, one outstanding;
 *   <li>throughput: decisions per second with many requests outstanding over several connections;
 *   <li>connection set-up: a bare TCP connect versus TCP connect plus OPN/CAT.
 * </ol>
 *
 * Both clients frame by the COPS length field and send pre-encoded bytes, so the difference is the
 * PDP's work. The PDP runs the rules engine with audit off.
 */
@Command(
    name = "pdp-load",
    mixinStandardHelpOptions = true,
    description = "PDP round-trip, throughput and set-up against raw TCP.")
public final class PdpLoad implements Callable<Integer> {
  @Mixin LoadOptions load = new LoadOptions();

  @Option(
      names = "--round-trips",
      defaultValue = "100000",
      description = "Round trips measured on each side, after a quarter as many to warm up.")
  int roundTrips;

  @Option(names = "--pdp-threads", defaultValue = "1", description = "PDP event-loop threads.")
  int pdpThreads;

  @Option(
      names = "--throughput-rounds",
      defaultValue = "5",
      description = "Rounds of the side-by-side throughput run (default: ${DEFAULT-VALUE}).")
  int throughputRounds;

  @Option(
      names = "--audit",
      description =
          "Record every decision in an audit log (in a scratch folder), as a deployed PDP does;"
              + " without it the PDP audits nothing.")
  boolean audit;

  @Option(names = "--connects", defaultValue = "2000")
  int connects;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("pdp-load", new PdpLoad()).execute(args));
  }

  /**
   * The access REQ every load here sends (on handle {@code handle}): the benchmarks' one request.
   */
  public static byte[] request(int handle) throws Exception {
    AccessRequest ar =
        new AccessRequest(
            AccessOperation.ACCESS,
            "alice",
            2,
            List.of("nat"),
            InetAddress.getByName("192.0.2.1"),
            50000,
            InetAddress.getByName("10.1.2.3"),
            22,
            6,
            "ssh",
            AccessMode.READ,
            null,
            null);
    return CopsCodec.encode(
        Request.of(
            AccessRequest.CLIENT_TYPE,
            Handle.of(String.format("h%06d", handle)),
            new Context(Context.R_INCOMING, 0),
            ar.toClientSI()));
  }

  @Override
  public Integer call() throws Exception {
    Path scratch = Files.createTempDirectory("pdp-load");
    PdpConfig cfg =
        config("pdp-load", "rules", load.policy, audit ? scratch.resolve("audit.jsonl") : null);
    byte[] opn = CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "load"));
    byte[] req = request(0);
    int decLength;
    EventLoopGroup clientGroup = Transport.EPOLL.group(1);
    EventLoopGroup rawGroup = Transport.EPOLL.group(pdpThreads);
    PdpServer started;
    CPrograms.Responder cResponder = null;
    try {
      started = PdpServer.start(cfg, pdpThreads);
    } catch (ConfigException e) {
      clientGroup.shutdownGracefully();
      rawGroup.shutdownGracefully();
      Scratch.delete(scratch);
      System.err.println("error: " + e.getMessage());
      return 2;
    }
    try (PdpServer pdp = started) {
      // The DEC the PDP sends for this REQ, to size the raw answer identically.
      decLength = LoopbackLoad.firstAnswerLength(clientGroup, pdp.address(), opn, req);
      Channel raw = LoopbackLoad.rawServer(rawGroup, req.length, decLength);
      InetSocketAddress rawAddr = (InetSocketAddress) raw.localAddress();
      byte[] fixedDec = new byte[decLength];
      System.arraycopy(LoopbackLoad.header(decLength), 0, fixedDec, 0, 8);
      Channel decoding = LoopbackLoad.decodingServer(rawGroup, fixedDec);
      InetSocketAddress decAddr = (InetSocketAddress) decoding.localAddress();
      System.out.printf(
          "messages: REQ %d bytes, DEC %d bytes; %d connections x %d outstanding; PDP %d thread(s), client 1 thread; audit %s%n",
          req.length,
          decLength,
          load.connections,
          load.outstanding,
          pdpThreads,
          audit ? "on" : "off");
      String noC = CPrograms.why();
      if (noC != null) {
        System.out.println("no C responder or generator: " + noC + "; Java loads, no C anchor");
      }
      CPrograms programs = noC == null ? CPrograms.build(scratch) : null;
      cResponder = programs == null ? null : programs.responder(fixedDec, pdpThreads);

      // 1. a fresh PDP from cold to its plateau: what follows is measured on the plateau
      Throughput t = new Throughput(clientGroup, opn, req.length, load, programs);
      t.climb(pdp.address());

      // 2. round trips: alternate raw and COPS in rounds, so that the noise of a shared machine
      // falls on both alike; the ratio reported is the median of the per-round ratios.
      LoopbackLoad.pingPong(clientGroup, rawAddr, null, req, roundTrips / 4); // warm-up
      LoopbackLoad.pingPong(clientGroup, pdp.address(), opn, req, roundTrips / 4);
      int rounds = 10;
      long[] rawRtt = new long[0];
      long[] decRtt = new long[0];
      long[] copsRtt = new long[0];
      LoopbackLoad.pingPong(clientGroup, decAddr, null, req, roundTrips / 4);
      double[] ratios = new double[rounds];
      PdpTimings timings = pdp.enableTimings();
      for (int round = 0; round < rounds; round++) {
        long[] r = LoopbackLoad.pingPong(clientGroup, rawAddr, null, req, roundTrips / rounds);
        decRtt =
            concat(
                decRtt,
                LoopbackLoad.pingPong(clientGroup, decAddr, null, req, roundTrips / rounds));
        long[] c = LoopbackLoad.pingPong(clientGroup, pdp.address(), opn, req, roundTrips / rounds);
        ratios[round] = (double) Quantiles.at(c, 0.5) / Quantiles.at(r, 0.5);
        rawRtt = concat(rawRtt, r);
        copsRtt = concat(copsRtt, c);
      }
      long[] inPdp = timings.samples(PdpTimings.Phase.REQUEST_TO_DECISION);
      pdp.disableTimings(); // the throughput run measures the PDP, not its sample queue
      Stats ratio = Stats.of(ratios);
      System.out.println();
      System.out.printf(
          "round trip, one connection, one outstanding, %d rounds alternating (us):%n", rounds);
      System.out.printf("  %-28s %9s %9s %9s%n", "", "mean", "median", "p99");
      row("raw TCP ping-pong", rawRtt);
      row("COPS decoder, fixed answer", decRtt);
      row("COPS REQ/DEC via the PDP", copsRtt);
      row("  of which inside the PDP", inPdp);
      System.out.printf(
          "  ratio COPS/raw of the round medians: median %.2fx (rounds from %.2fx to %.2fx)%n",
          ratio.median(), ratio.min(), ratio.max());

      // 3. throughput, side by side: rounds alternating the anchors and the PDP
      t.sideBySide(throughputRounds, cResponder, rawAddr, pdp.address());

      // 4. connection set-up
      long[] tcp = LoopbackLoad.connects(clientGroup, pdp.address(), null, connects);
      long[] open = LoopbackLoad.connects(clientGroup, pdp.address(), opn, connects);
      System.out.println();
      System.out.println("connection set-up, sequential (us):");
      System.out.printf("  %-28s %9s %9s %9s%n", "", "mean", "median", "p99");
      row("bare TCP connect", tcp);
      row("TCP connect + OPN/CAT", open);
      System.out.printf(
          "  ratio: median %.2fx%n", (double) Quantiles.at(open, 0.5) / Quantiles.at(tcp, 0.5));
      raw.close().sync();
      decoding.close().sync();
    } finally {
      if (cResponder != null) {
        cResponder.close();
      }
      Scratch.delete(scratch);
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
      rawGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
    return 0;
  }

  /**
   * A PDP on a free loopback port serving the access client type with {@code engine} over {@code
   * policy}: audit, statistics and limits out of the way of a load test.
   */
  static PdpConfig config(String name, String engine, Path policy) {
    return config(name, engine, policy, null);
  }

  /**
   * As {@link #config(String, String, Path)}, recording each decision in {@code audit} if given.
   */
  static PdpConfig config(String name, String engine, Path policy, Path audit) {
    return new PdpConfig(
        name,
        InetAddress.getLoopbackAddress(),
        0,
        Duration.ofSeconds(30),
        Duration.ZERO,
        Duration.ofSeconds(10),
        CopsCodec.DEFAULT_MAX_MESSAGE_SIZE,
        1 << 20,
        Integer.MAX_VALUE,
        1024,
        1 << 20,
        Map.of(
            AccessRequest.CLIENT_TYPE,
            new PdpConfig.ClientTypeConfig(AccessRequest.CLIENT_TYPE, engine, policy, false)),
        List.of(),
        audit,
        Duration.ofHours(1),
        null,
        null,
        null,
        null,
        null,
        PdpConfig.DEFAULT_DRAIN,
        null);
  }

  static long[] concat(long[] a, long[] b) {
    long[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  static void row(String name, long[] ns) {
    System.out.println(rowText(name, ns));
  }

  /** A table row: mean, median and p99 of {@code ns}, in microseconds. */
  static String rowText(String name, long[] ns) {
    Histogram h = Quantiles.of(ns);
    return String.format(
        Locale.ROOT,
        "  %-28s %9.1f %9.1f %9.1f",
        name,
        mean(ns) / 1e3,
        Quantiles.at(h, 0.5) / 1e3,
        Quantiles.at(h, 0.99) / 1e3);
  }

  static double mean(long[] v) {
    return Arrays.stream(v).average().orElse(0);
  }
}
