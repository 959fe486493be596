package dev.portcullis.bench;

import dev.portcullis.active.Domain;
import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * End to end over real UDP sockets on loopback: how many packets a second an Active Router forwards
 * with verification on (code 'forward', a no-op service) and with verification switched off (parse,
 * route, forward), both routers in one domain and one JVM, trials alternating. The sender blasts
 * sealed packets as fast as it can; the rate is what reaches the destination, from its first packet
 * to its last.
 */
@Command(
    name = "router-throughput",
    mixinStandardHelpOptions = true,
    description = "Active router packets per second, verification on vs off.")
public final class RouterThroughput implements Callable<Integer> {
  @Option(names = "--packets", defaultValue = "100000", description = "Per trial.")
  int packets;

  @Option(names = "--size", defaultValue = "256", description = "Packet bytes.")
  int size;

  @Option(names = "--trials", defaultValue = "7", description = "Per mode.")
  int trials;

  @Option(
      names = "--warmup",
      defaultValue = "3",
      description = "Trials per mode run first and not kept (JIT, caches).")
  int warmup;

  @Mixin CryptoConfigOption crypto = new CryptoConfigOption();

  /** One mode's trials, packets per second. */
  public record Result(double[] verifyingPps, double[] plainPps) {
    public double ratio() {
      return median(verifyingPps) / median(plainPps);
    }
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("router-throughput", new RouterThroughput()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Result r = run();
    System.out.printf(
        "router forwarding, %d-byte packets, %d per trial, %d trials per mode (loopback, one JVM)%n",
        size, packets, trials);
    System.out.printf(
        "verification on : %s pps, median %.0f%n",
        Arrays.toString(round(r.verifyingPps())), median(r.verifyingPps()));
    System.out.printf(
        "verification off: %s pps, median %.0f%n",
        Arrays.toString(round(r.plainPps())), median(r.plainPps()));
    System.out.printf("ratio on/off: %.2f%n", r.ratio());
    System.out.printf(
        "(%d of %d datagrams lost on loopback: the sender outruns the routers, as it should)%n",
        lost, sent);
    return 0;
  }

  private static long[] round(double[] v) {
    return Arrays.stream(v).mapToLong(Math::round).toArray();
  }

  public Result run() throws Exception {
    Path dir = Files.createTempDirectory("router-throughput");
    Path xml = dir.resolve("rosa.xml");
    int sinkPort = udpPort();
    Files.writeString(
        xml,
        """
        <rosa version="1">
          <pki directory="pki"/>
          <crypto config="%s"/>
          <auth-server listen="127.0.0.1:%d"/>
          <code-server listen="127.0.0.1:%d"/>
          <code id="4" name="forward" class="dev.portcullis.active.service.builtin.Forward"/>
          <user name="alice" id="1001"/>
          <allow user="alice" code="forward" source="127.0.0.0/8" destination="127.0.0.0/8"/>
          <router id="on" listen="127.0.0.1:%d" codes="forward" max-sessions="1000">
            <route destination="127.0.0.0/8" next-hop="127.0.0.1:%d"/>
          </router>
          <router id="off" listen="127.0.0.1:%d" codes="forward" verify="false">
            <route destination="127.0.0.0/8" next-hop="127.0.0.1:%d"/>
          </router>
        </rosa>
        """
            .formatted(
                crypto.file.toAbsolutePath().normalize(),
                tcpPort(),
                tcpPort(),
                udpPort(),
                sinkPort,
                udpPort(),
                sinkPort));
    RosaConfig config = RosaConfig.load(xml);
    Domain d = new Domain(config, Clock.systemUTC());
    List<AutoCloseable> open = new ArrayList<>();
    try {
      CodeServer cs = d.codeServer();
      open.add(cs);
      AuthServer as = d.authServer();
      open.add(as);
      ActiveRouter on = d.router("on");
      open.add(on);
      ActiveRouter off = d.router("off");
      open.add(off);
      Drain sink = new Drain(new InetSocketAddress("127.0.0.1", sinkPort));
      open.add(sink);
      long now = System.currentTimeMillis() / 1000;
      double[] verifying = new double[trials];
      double[] plain = new double[trials];
      try (DatagramChannel udp = DatagramChannel.open()) {
        udp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        for (int t = -warmup; t < trials; t++) { // negative t: warm-up, not kept
          // A session per trial: fresh sequence numbers, nothing a replay window has seen.
          SessionGrant g =
              d.source("alice")
                  .request(
                      "forward",
                      "127.0.0.1",
                      "127.0.0.1",
                      now,
                      now + 600 + t,
                      MacAlgorithm.HMAC_SHA256_128,
                      false);
          PacketSealer s = g.sealer(d.registry());
          g.destroy();
          byte[] payload = new byte[size - 56 - 16];
          List<ByteBuffer> sealed = new ArrayList<>(packets);
          for (int i = 0; i < packets; i++) {
            sealed.add(ByteBuffer.wrap(s.seal(payload)));
          }
          s.destroy();
          // Fetch the code secret and module first, so the trial measures forwarding only.
          udp.send(sealed.get(0).duplicate(), on.address());
          awaitQuiet(sink, 1);
          double v = trial(udp, sealed.subList(1, sealed.size()), on.address(), sink);
          double p = trial(udp, sealed, off.address(), sink);
          if (t >= 0) {
            verifying[t] = v;
            plain[t] = p;
          }
        }
      }
      if (on.counters().drops() > on.counters().get(Outcome.PENDING)) {
        System.err.println("verifying router dropped: " + on.counters());
      }
      return new Result(verifying, plain);
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close();
      }
      d.registry().close();
    }
  }

  private long sent;
  private long lost;

  private double trial(
      DatagramChannel udp, List<ByteBuffer> sealed, InetSocketAddress to, Drain sink)
      throws Exception {
    sink.reset();
    for (ByteBuffer p : sealed) {
      udp.send(p.duplicate(), to);
    }
    awaitQuiet(sink, sealed.size());
    lost += sealed.size() - sink.received();
    sent += sealed.size();
    return sink.received() * 1e9 / Math.max(1, sink.spanNanos());
  }

  /** Until {@code n} have arrived or nothing has for 300 ms. */
  private static void awaitQuiet(Drain sink, long n) throws InterruptedException {
    long seen = -1;
    while (sink.received() < n && sink.received() != seen) {
      seen = sink.received();
      Thread.sleep(300);
    }
  }

  /**
   * The destination: a Netty datagram channel (epoll where there is one) that counts and releases,
   * so the receiving end costs as little as it can and the routers set the pace.
   */
  static final class Drain implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;
    private final AtomicLong received = new AtomicLong();
    private volatile long first;
    private volatile long last;

    Drain(InetSocketAddress address) throws InterruptedException {
      Transport transport = Transport.best();
      group = transport.group(1);
      channel =
          new Bootstrap()
              .group(group)
              .channel(transport.datagramChannel())
              .option(ChannelOption.SO_RCVBUF, 4 << 20)
              .handler(
                  new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object m) {
                      ReferenceCountUtil.release(m);
                      long t = System.nanoTime();
                      if (received.incrementAndGet() == 1) {
                        first = t;
                      }
                      last = t;
                    }
                  })
              .bind(address)
              .sync()
              .channel();
    }

    long received() {
      return received.get();
    }

    long spanNanos() {
      return last - first;
    }

    void reset() {
      received.set(0);
    }

    @Override
    public void close() {
      channel.close().syncUninterruptibly();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static int tcpPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static int udpPort() throws Exception {
    try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
