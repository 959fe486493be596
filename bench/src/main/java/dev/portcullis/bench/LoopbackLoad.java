package dev.portcullis.bench;

import dev.portcullis.cops.CopsDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The loopback ends of {@link PdpLoad}: the responders measured against the PDP (a raw one that
 * answers every request-sized message with a decision-sized one, and one that decodes each REQ with
 * {@code CopsDecoder}), and the load generator's clients (ping-pong round trips, throughput with
 * many requests outstanding, sequential connection set-up). Both frame by the COPS length field and
 * send pre-encoded bytes, so what differs is the work of the side measured.
 */
final class LoopbackLoad {
  private LoopbackLoad() {}

  /**
   * A responder that answers every {@code in}-byte message with a fixed {@code out}-byte one,
   * counting messages in the bytes as they arrive and answering a whole read in one write.
   */
  static Channel rawServer(EventLoopGroup group, int in, int out) throws InterruptedException {
    byte[] answer = new byte[out];
    System.arraycopy(header(out), 0, answer, 0, 8);
    return listen(
        group,
        p ->
            p.addLast(
                new ChannelInboundHandlerAdapter() {
                  private long received;

                  @Override
                  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    ctx.close(); // a client resetting at the end of a run
                  }

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
                }));
  }

  /**
   * A responder that frames and decodes each message with {@link dev.portcullis.cops.CopsDecoder}
   * and answers a fixed pre-encoded message: the codec's and pipeline's cost without any policy.
   */
  static Channel decodingServer(EventLoopGroup group, byte[] answerBytes)
      throws InterruptedException {
    return listen(
        group,
        p ->
            p.addLast(new CopsDecoder())
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
                    }));
  }

  /** A loopback server on a free port whose connections get {@code pipeline}'s handlers. */
  private static Channel listen(EventLoopGroup group, Consumer<ChannelPipeline> pipeline)
      throws InterruptedException {
    return new ServerBootstrap()
        .group(group)
        .channel(EpollServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                pipeline.accept(ch.pipeline());
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
    return dial(
        g,
        to,
        p ->
            p.addLast(new LengthFieldBasedFrameDecoder(1 << 20, 4, 4, -8, 0))
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
                    }));
  }

  /** A loopback client connection to {@code to} with {@code pipeline}'s handlers, connected. */
  private static Channel dial(
      EventLoopGroup g, InetSocketAddress to, Consumer<ChannelPipeline> pipeline)
      throws InterruptedException {
    return new Bootstrap()
        .group(g)
        .channel(EpollSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                pipeline.accept(ch.pipeline());
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
   * Answers per second with {@code outstanding} messages in flight on each connection, over {@code
   * seconds} after 2 seconds of warm-up.
   */
  static double throughput(
      EventLoopGroup g,
      InetSocketAddress to,
      byte[] opn,
      int reqLength,
      int connections,
      int outstanding,
      int seconds)
      throws Exception {
    try (Flow f = Flow.open(g, to, opn, reqLength, connections, outstanding)) {
      f.rate(2000); // warm-up
      return f.rate(seconds * 1000L);
    }
  }

  /** {@code n} access requests of {@code reqLength} bytes each, on handles 0 to n-1. */
  static byte[] requests(int n, int reqLength) throws Exception {
    byte[] batch = new byte[n * reqLength];
    for (int h = 0; h < n; h++) {
      System.arraycopy(PdpLoad.request(h), 0, batch, h * reqLength, reqLength);
    }
    return batch;
  }

  /**
   * A load with {@code outstanding} messages in flight on each of several connections, whose rate
   * is read over windows. The generator parses answer lengths in place and answers each read with
   * one write of as many requests as answers arrived, so it costs little per message and the
   * responder is what is measured.
   */
  static final class Flow implements AutoCloseable {
    private final LongAdder answers = new LongAdder();
    private final Channel[] chs;

    private Flow(int connections) {
      chs = new Channel[connections];
    }

    /** Answers per second over the next {@code millis}. */
    double rate(long millis) throws InterruptedException {
      long a0 = answers.sum();
      long t0 = System.nanoTime();
      Thread.sleep(millis); // the window measured: the load runs on the event loop meanwhile
      return (answers.sum() - a0) / ((System.nanoTime() - t0) / 1e9);
    }

    /** Closes every connection and waits (at most 5 s each) until it is closed. */
    @Override
    public void close() {
      for (Channel ch : chs) {
        ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
      }
    }

    static Flow open(
        EventLoopGroup g,
        InetSocketAddress to,
        byte[] opn,
        int reqLength,
        int connections,
        int outstanding)
        throws Exception {
      Flow f = new Flow(connections);
      LongAdder answers = f.answers;
      Channel[] chs = f.chs;
      byte[] batch = requests(outstanding, reqLength);
      CompletableFuture<?>[] ready = new CompletableFuture<?>[connections];
      for (int c = 0; c < connections; c++) {
        CompletableFuture<Void> r = new CompletableFuture<>();
        ready[c] = r;
        chs[c] =
            dial(
                g,
                to,
                p ->
                    p.addLast(
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
                                o.writeBytes(batch, (next++ % outstanding) * reqLength, reqLength);
                              }
                              ctx.writeAndFlush(o);
                            }
                          }
                        }));
      }
      CompletableFuture.allOf(ready).get(10, TimeUnit.SECONDS);
      return f;
    }
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
