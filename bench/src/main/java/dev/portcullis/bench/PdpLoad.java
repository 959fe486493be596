package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.CopsObject;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.PdpTimings;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.NettySetup;
import dev.portcullis.support.Quantiles;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
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
  @Option(
      names = "--policy",
      defaultValue = "config/policy-rules.xml",
      description = "Rules policy (default: ${DEFAULT-VALUE}).")
  Path policy;

  @Option(
      names = "--round-trips",
      defaultValue = "100000",
      description = "Round trips measured on each side, after a quarter as many to warm up.")
  int roundTrips;

  @Option(names = "--connections", defaultValue = "2")
  int connections;

  @Option(
      names = "--outstanding",
      defaultValue = "32",
      description = "Requests outstanding per connection.")
  int outstanding;

  @Option(
      names = "--seconds",
      defaultValue = "5",
      description = "Measured seconds of the throughput run.")
  int seconds;

  @Option(names = "--pdp-threads", defaultValue = "1", description = "PDP event-loop threads.")
  int pdpThreads;

  @Option(names = "--connects", defaultValue = "2000")
  int connects;

  public static void main(String[] args) {
    NettySetup.beforeNetty();
    System.exit(new CommandLine(new PdpLoad()).execute(args));
  }

  static byte[] request(int handle) throws Exception {
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
        CopsMessage.Request.of(
            AccessRequest.CLIENT_TYPE,
            CopsObject.Handle.of(String.format("h%06d", handle)),
            new CopsObject.Context(CopsObject.Context.R_INCOMING, 0),
            ar.toClientSI()));
  }

  @Override
  public Integer call() throws Exception {
    PdpConfig cfg =
        new PdpConfig(
            "pdp-load",
            InetAddress.getLoopbackAddress(),
            0,
            Duration.ofSeconds(30),
            Duration.ZERO,
            Duration.ofSeconds(10),
            CopsCodec.DEFAULT_MAX_MESSAGE_SIZE,
            1 << 20,
            Integer.MAX_VALUE,
            1024,
            Map.of(
                AccessRequest.CLIENT_TYPE,
                new PdpConfig.ClientTypeConfig(AccessRequest.CLIENT_TYPE, "rules", policy, false)),
            List.of(),
            null,
            Duration.ofHours(1),
            null);
    byte[] opn = CopsCodec.encode(CopsMessage.ClientOpen.of(AccessRequest.CLIENT_TYPE, "load"));
    byte[] req = request(0);
    int decLength;
    EventLoopGroup clientGroup = new EpollEventLoopGroup(1);
    EventLoopGroup rawGroup = new EpollEventLoopGroup(pdpThreads);
    PdpServer started;
    try {
      started = PdpServer.start(cfg, pdpThreads);
    } catch (ConfigException e) {
      clientGroup.shutdownGracefully();
      rawGroup.shutdownGracefully();
      System.err.println("error: " + e.getMessage());
      return 2;
    }
    try (PdpServer pdp = started) {
      // The DEC the PDP sends for this REQ, to size the raw answer identically.
      decLength = firstAnswerLength(clientGroup, pdp.address(), opn, req);
      Channel raw = rawServer(rawGroup, req.length, decLength);
      InetSocketAddress rawAddr = (InetSocketAddress) raw.localAddress();
      byte[] fixedDec = new byte[decLength];
      System.arraycopy(header(decLength), 0, fixedDec, 0, 8);
      Channel decoding = decodingServer(rawGroup, fixedDec);
      InetSocketAddress decAddr = (InetSocketAddress) decoding.localAddress();
      System.out.printf(
          "messages: REQ %d bytes, DEC %d bytes; %d connections x %d outstanding; PDP %d thread(s), client 1 thread%n",
          req.length, decLength, connections, outstanding, pdpThreads);

      // 1. round trips: alternate raw and COPS in rounds, so that the noise of a shared machine
      // falls on both alike; the ratio reported is the median of the per-round ratios.
      pingPong(clientGroup, rawAddr, null, req, roundTrips / 4); // warm-up
      pingPong(clientGroup, pdp.address(), opn, req, roundTrips / 4);
      int rounds = 10;
      long[] rawRtt = new long[0];
      long[] decRtt = new long[0];
      long[] copsRtt = new long[0];
      pingPong(clientGroup, decAddr, null, req, roundTrips / 4);
      double[] ratios = new double[rounds];
      PdpTimings timings = pdp.enableTimings();
      for (int round = 0; round < rounds; round++) {
        long[] r = pingPong(clientGroup, rawAddr, null, req, roundTrips / rounds);
        decRtt = concat(decRtt, pingPong(clientGroup, decAddr, null, req, roundTrips / rounds));
        long[] c = pingPong(clientGroup, pdp.address(), opn, req, roundTrips / rounds);
        ratios[round] = (double) q(c, 0.5) / q(r, 0.5);
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

      // 2. throughput
      double rawTput = throughput(clientGroup, rawAddr, null, req.length);
      double copsTput = throughput(clientGroup, pdp.address(), opn, req.length);
      System.out.println();
      System.out.printf(
          "throughput, %d connections x %d outstanding, %d s:%n",
          connections, outstanding, seconds);
      System.out.printf("  %-28s %,12.0f answers/s%n", "raw TCP responder", rawTput);
      System.out.printf(
          "  %-28s %,12.0f decisions/s (%.2fx raw)%n",
          "PDP, rules engine", copsTput, copsTput / rawTput);

      // 3. connection set-up
      long[] tcp = connects(clientGroup, pdp.address(), null, connects);
      long[] open = connects(clientGroup, pdp.address(), opn, connects);
      System.out.println();
      System.out.println("connection set-up, sequential (us):");
      System.out.printf("  %-28s %9s %9s %9s%n", "", "mean", "median", "p99");
      row("bare TCP connect", tcp);
      row("TCP connect + OPN/CAT", open);
      System.out.printf("  ratio: median %.2fx%n", (double) q(open, 0.5) / q(tcp, 0.5));
      raw.close().sync();
      decoding.close().sync();
    } finally {
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
      rawGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
    return 0;
  }

  static long[] concat(long[] a, long[] b) {
    long[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  static void row(String name, long[] ns) {
    System.out.printf(
        "  %-28s %9.1f %9.1f %9.1f%n", name, mean(ns) / 1e3, q(ns, 0.5) / 1e3, q(ns, 0.99) / 1e3);
  }

  static double mean(long[] v) {
    return Arrays.stream(v).average().orElse(0);
  }

  static long q(long[] v, double q) {
    return Quantiles.of(v, q);
  }

  /**
   * A responder that answers every {@code in}-byte message with a fixed {@code out}-byte one,
   * counting messages in the bytes as they arrive and answering a whole read in one write.
   */
  static Channel rawServer(EventLoopGroup group, int in, int out) throws InterruptedException {
    byte[] answer = new byte[out];
    System.arraycopy(header(out), 0, answer, 0, 8);
    return new ServerBootstrap()
        .group(group)
        .channel(EpollServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                    .addLast(
                        new ChannelInboundHandlerAdapter() {
                          private long received;

                          @Override
                          public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            long before = received / in;
                            received += b.readableBytes();
                            b.release();
                            int n = (int) (received / in - before);
                            if (n > 0) {
                              ByteBuf o = ctx.alloc().directBuffer(n * out);
                              for (int i = 0; i < n; i++) {
                                o.writeBytes(answer);
                              }
                              ctx.writeAndFlush(o);
                            }
                          }
                        });
              }
            })
        .bind(InetAddress.getLoopbackAddress(), 0)
        .sync()
        .channel();
  }

  /**
   * A responder that frames and decodes each message with {@link dev.portcullis.cops.CopsDecoder}
   * and answers a fixed pre-encoded message: the codec's and pipeline's cost without any policy.
   */
  static Channel decodingServer(EventLoopGroup group, byte[] answerBytes)
      throws InterruptedException {
    return new ServerBootstrap()
        .group(group)
        .channel(EpollServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                    .addLast(new CopsDecoder())
                    .addLast(
                        new ChannelInboundHandlerAdapter() {
                          @Override
                          public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            ctx.close();
                          }

                          @Override
                          public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(Unpooled.wrappedBuffer(answerBytes));
                          }

                          @Override
                          public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                          }
                        });
              }
            })
        .bind(InetAddress.getLoopbackAddress(), 0)
        .sync()
        .channel();
  }

  /** A COPS-looking header with the given length, so one framer reads both answers. */
  static byte[] header(int len) {
    return new byte[] {
      0x11,
      0x02,
      (byte) 0xC0,
      (byte) 0xA5,
      (byte) (len >>> 24),
      (byte) (len >>> 16),
      (byte) (len >>> 8),
      (byte) len
    };
  }

  /** A client connection framing by the COPS length field and handing frames to a callback. */
  static Channel connect(
      EventLoopGroup g, InetSocketAddress to, BiConsumer<ChannelHandlerContext, ByteBuf> onFrame)
      throws InterruptedException {
    return new Bootstrap()
        .group(g)
        .channel(EpollSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                    .addLast(new LengthFieldBasedFrameDecoder(1 << 20, 4, 4, -8, 0))
                    .addLast(
                        new ChannelInboundHandlerAdapter() {
                          @Override
                          public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            try {
                              onFrame.accept(ctx, b);
                            } finally {
                              b.release();
                            }
                          }
                        });
              }
            })
        .connect(to)
        .sync()
        .channel();
  }

  static int firstAnswerLength(EventLoopGroup g, InetSocketAddress pdp, byte[] opn, byte[] req)
      throws Exception {
    CompletableFuture<Integer> len = new CompletableFuture<>();
    Channel ch =
        connect(
            g,
            pdp,
            (ctx, b) -> {
              if (b.getByte(1) == 7) { // CAT
                ctx.writeAndFlush(Unpooled.wrappedBuffer(req));
              } else {
                len.complete(b.readableBytes());
              }
            });
    ch.writeAndFlush(Unpooled.wrappedBuffer(opn));
    int n = len.get(10, TimeUnit.SECONDS);
    ch.close().sync();
    return n;
  }

  /** Sequential round trips driven from the event loop; returns each one's nanoseconds. */
  static long[] pingPong(EventLoopGroup g, InetSocketAddress to, byte[] opn, byte[] req, int n)
      throws Exception {
    long[] rtt = new long[n];
    ByteBuf base = Unpooled.directBuffer(req.length).writeBytes(req);
    ByteBuf msg = Unpooled.unreleasableBuffer(base);
    CompletableFuture<Void> done = new CompletableFuture<>();
    int[] i = {0};
    long[] sent = {0};
    Channel ch =
        connect(
            g,
            to,
            (ctx, b) -> {
              long now = System.nanoTime();
              if (opn != null && b.getByte(1) == 7) { // CAT: start
                sent[0] = System.nanoTime();
                ctx.writeAndFlush(msg.duplicate());
                return;
              }
              rtt[i[0]++] = now - sent[0];
              if (i[0] == n) {
                done.complete(null);
                return;
              }
              sent[0] = System.nanoTime();
              ctx.writeAndFlush(msg.duplicate());
            });
    if (opn != null) {
      ch.writeAndFlush(Unpooled.wrappedBuffer(opn));
    } else {
      ch.eventLoop()
          .execute(
              () -> {
                sent[0] = System.nanoTime();
                ch.writeAndFlush(msg.duplicate());
              });
    }
    done.get(120, TimeUnit.SECONDS);
    ch.close().sync();
    base.release();
    return rtt;
  }

  /**
   * Answers per second with {@code outstanding} messages in flight on each connection. The
   * generator parses answer lengths in place and answers each read with one write of as many
   * requests as answers arrived, so it costs little per message and the responder is what is
   * measured.
   */
  double throughput(EventLoopGroup g, InetSocketAddress to, byte[] opn, int reqLength)
      throws Exception {
    LongAdder answers = new LongAdder();
    Channel[] chs = new Channel[connections];
    byte[] batch = new byte[outstanding * reqLength];
    for (int h = 0; h < outstanding; h++) {
      System.arraycopy(request(h), 0, batch, h * reqLength, reqLength);
    }
    CompletableFuture<?>[] ready = new CompletableFuture<?>[connections];
    for (int c = 0; c < connections; c++) {
      CompletableFuture<Void> r = new CompletableFuture<>();
      ready[c] = r;
      chs[c] =
          new Bootstrap()
              .group(g)
              .channel(EpollSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(
                              new ChannelInboundHandlerAdapter() {
                                private final byte[] header = new byte[8];
                                private int headerFill;
                                private long frameLeft;
                                private boolean open = opn == null;
                                private int next;

                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                  if (opn != null) {
                                    ctx.writeAndFlush(Unpooled.wrappedBuffer(opn));
                                  } else {
                                    start(ctx);
                                  }
                                }

                                private void start(ChannelHandlerContext ctx) {
                                  ctx.writeAndFlush(Unpooled.wrappedBuffer(batch));
                                  r.complete(null);
                                }

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                  ByteBuf b = (ByteBuf) msg;
                                  int done = 0;
                                  while (b.isReadable()) {
                                    if (frameLeft > 0) {
                                      int skip = (int) Math.min(frameLeft, b.readableBytes());
                                      b.skipBytes(skip);
                                      frameLeft -= skip;
                                      if (frameLeft == 0) {
                                        done++;
                                      }
                                      continue;
                                    }
                                    int take = Math.min(8 - headerFill, b.readableBytes());
                                    b.readBytes(header, headerFill, take);
                                    headerFill += take;
                                    if (headerFill == 8) {
                                      headerFill = 0;
                                      long len =
                                          ((header[4] & 0xFFL) << 24)
                                              | ((header[5] & 0xFF) << 16)
                                              | ((header[6] & 0xFF) << 8)
                                              | (header[7] & 0xFF);
                                      if (!open && header[1] == 7) { // CAT
                                        open = true;
                                        frameLeft = len - 8;
                                        if (frameLeft == 0) {
                                          start(ctx);
                                        } else {
                                          // the rest of the CAT is skipped below; start once it is
                                          // consumed
                                          int skip = (int) Math.min(frameLeft, b.readableBytes());
                                          b.skipBytes(skip);
                                          frameLeft -= skip;
                                          start(ctx);
                                        }
                                        continue;
                                      }
                                      frameLeft = len - 8;
                                      if (frameLeft == 0) {
                                        done++;
                                      }
                                    }
                                  }
                                  b.release();
                                  if (done > 0) {
                                    answers.add(done);
                                    ByteBuf o = ctx.alloc().directBuffer(done * reqLength);
                                    for (int i = 0; i < done; i++) {
                                      // Re-send on the handles in turn: one outstanding per handle,
                                      // W in flight.
                                      o.writeBytes(
                                          batch, (next++ % outstanding) * reqLength, reqLength);
                                    }
                                    ctx.writeAndFlush(o);
                                  }
                                }
                              });
                    }
                  })
              .connect(to)
              .sync()
              .channel();
    }
    CompletableFuture.allOf(ready).get(10, TimeUnit.SECONDS);
    Thread.sleep(2000); // warm-up
    long a0 = answers.sum();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    double rate = (answers.sum() - a0) / ((System.nanoTime() - t0) / 1e9);
    for (Channel ch : chs) {
      ch.close().sync();
    }
    return rate;
  }

  /** Sequential connection set-ups: TCP connect (and OPN/CAT if given) then close. */
  static long[] connects(EventLoopGroup g, InetSocketAddress to, byte[] opn, int n)
      throws Exception {
    long[] t = new long[n];
    for (int i = 0; i < n; i++) {
      CompletableFuture<Long> done = new CompletableFuture<>();
      long t0 = System.nanoTime();
      Channel ch = connect(g, to, (ctx, b) -> done.complete(System.nanoTime()));
      if (opn == null) {
        t[i] = System.nanoTime() - t0;
      } else {
        ch.writeAndFlush(Unpooled.wrappedBuffer(opn));
        t[i] = done.get(10, TimeUnit.SECONDS) - t0;
      }
      ch.close().sync();
    }
    return t;
  }
}
