package dev.portcullis.pep.sim;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The session simulator of the COPS over TLS/IPsec paper: each session opens a TCP connection,
 * sends OPN and waits for CAT, sends one REQ and waits for its DEC, then sends CC and closes. The
 * PEP side times the TCP connect, the OPN/CAT exchange, the REQ/DEC exchange and the whole session
 * separately, with {@link System#nanoTime()} on the client's event loop.
 */
public final class Simulator implements AutoCloseable {
  private final EventLoopGroup group = Transport.NIO.group(1);
  private final InetSocketAddress pdp;
  private final int clientType;

  /** PEP-side times of every session: connect, open, request, session. */
  public record Result(
      SessionTimes connect,
      SessionTimes open,
      SessionTimes request,
      SessionTimes session,
      int failures,
      String firstFailure) {}

  public Simulator(InetSocketAddress pdp, int clientType) {
    this.pdp = pdp;
    this.clientType = clientType;
  }

  /**
   * Runs {@code sessions} sessions, {@code concurrency} at a time.
   *
   * @param timeoutSeconds give up on one session after this long
   */
  public Result run(int sessions, int concurrency, long timeoutSeconds)
      throws InterruptedException {
    return run(sessions, concurrency, timeoutSeconds, n -> {});
  }

  /** As {@link #run(int, int, long)}, telling {@code progress} of each batch of sessions done. */
  public Result run(int sessions, int concurrency, long timeoutSeconds, IntConsumer progress)
      throws InterruptedException {
    long[] connect = new long[sessions];
    long[] open = new long[sessions];
    long[] request = new long[sessions];
    long[] total = new long[sessions];
    int ok = 0;
    int failures = 0;
    String firstFailure = null;
    int next = 0;
    while (next < sessions) {
      int batch = Math.min(concurrency, sessions - next);
      List<CompletableFuture<long[]>> running = new ArrayList<>(batch);
      for (int i = 0; i < batch; i++) {
        running.add(session(next + i));
      }
      for (CompletableFuture<long[]> f : running) {
        try {
          long[] t = f.get(timeoutSeconds, TimeUnit.SECONDS);
          connect[ok] = t[0];
          open[ok] = t[1];
          request[ok] = t[2];
          total[ok] = t[3];
          ok++;
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          failures++;
          if (firstFailure == null) {
            firstFailure = Cli.message(e); // what went wrong, not the exception's class
          }
        }
      }
      next += batch;
      progress.accept(batch);
    }
    return new Result(
        new SessionTimes("TCP connect", Arrays.copyOf(connect, ok)),
        new SessionTimes("OPN -> CAT", Arrays.copyOf(open, ok)),
        new SessionTimes("REQ -> DEC", Arrays.copyOf(request, ok)),
        new SessionTimes("whole session", Arrays.copyOf(total, ok)),
        failures,
        firstFailure);
  }

  /** Session {@code n}'s request: alice reads https on loopback, from a port of its own. */
  static AccessRequest request(int n) {
    return new AccessRequest(
        AccessOperation.ACCESS,
        "alice",
        1,
        List.of(),
        InetAddress.getLoopbackAddress(),
        40000 + (n % 20000),
        InetAddress.getLoopbackAddress(),
        443,
        6,
        "https",
        AccessMode.READ,
        null,
        null);
  }

  private CompletableFuture<long[]> session(int n) {
    CompletableFuture<long[]> done = new CompletableFuture<>();
    long[] t = new long[5]; // start, connected, accepted, decided, (spare)
    AccessRequest ar = request(n);
    CopsMessage req =
        Request.of(
            clientType, Handle.of("sim-" + n), new Context(Context.R_INCOMING, 0), ar.toClientSI());
    t[0] = System.nanoTime();
    new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                    .addLast(new CopsDecoder(CopsCodec.DEFAULT_MAX_MESSAGE_SIZE, null))
                    .addLast(new CopsEncoder())
                    .addLast(
                        new SimpleChannelInboundHandler<Object>() {
                          @Override
                          protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
                            if (!(msg instanceof CopsMessage)) {
                              done.completeExceptionally(
                                  new IllegalStateException(
                                      "malformed message from the PDP: " + msg));
                              ctx.close();
                              return;
                            }
                            CopsMessage m = (CopsMessage) msg;
                            if (m instanceof ClientAccept) {
                              t[2] = System.nanoTime();
                              ctx.writeAndFlush(req);
                            } else if (m instanceof Decision) {
                              t[3] = System.nanoTime();
                              ctx.writeAndFlush(
                                      ClientClose.of(clientType, ErrorCode.UNSPECIFIED, 0))
                                  .addListener(
                                      x ->
                                          ctx.close()
                                              .addListener(
                                                  y -> {
                                                    long end = System.nanoTime();
                                                    done.complete(
                                                        new long[] {
                                                          t[1] - t[0],
                                                          t[2] - t[1],
                                                          t[3] - t[2],
                                                          end - t[0]
                                                        });
                                                  }));
                            } else if (m instanceof ClientClose) {
                              done.completeExceptionally(
                                  new IllegalStateException(
                                      "PDP closed the session: error "
                                          + ((ClientClose) m).error().code()));
                              ctx.close();
                            }
                          }

                          @Override
                          public void channelInactive(ChannelHandlerContext ctx) {
                            done.completeExceptionally(
                                new IllegalStateException(
                                    "connection closed before the session ended"));
                          }
                        });
              }
            })
        .connect(pdp)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                done.completeExceptionally(f.cause());
                return;
              }
              t[1] = System.nanoTime();
              Channel ch = ((ChannelFuture) f).channel();
              ch.writeAndFlush(ClientOpen.of(clientType, "sim-pep-" + n));
            });
    return done;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
