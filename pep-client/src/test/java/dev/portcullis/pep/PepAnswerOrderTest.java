package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A PDP that answers a request and at once pushes a second decision on the same handle (as the
 * tunnel desk answers a held client and then sends its start): the answer is handled before the
 * push on the caller's executor even when the calling thread runs only after both have arrived (a
 * thread preempted right after sending, as TunnelSetupBench's 500-tunnel rounds showed one).
 */
@Timeout(60)
class PepAnswerOrderTest {
  private static final byte[] CAT = ByteBufUtil.decodeHexDump("1107c0a50000001000080a0100000000");

  /** A scripted PDP: CAT for OPN; for each REQ, its solicited Install and an unsolicited one. */
  static Channel pdp(EventLoopGroup group) throws InterruptedException {
    return new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new Answers());
              }
            })
        .bind(InetAddress.getLoopbackAddress(), 0)
        .sync()
        .channel();
  }

  static final class Answers extends ChannelInboundHandlerAdapter {
    private final ByteBuf pending = Unpooled.buffer();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      ByteBuf in = (ByteBuf) msg;
      pending.writeBytes(in);
      in.release();
      while (pending.readableBytes() >= 8
          && pending.readableBytes() >= pending.getInt(pending.readerIndex() + 4)) {
        byte[] bytes = new byte[pending.getInt(pending.readerIndex() + 4)];
        pending.readBytes(bytes);
        CopsMessage m = CopsCodec.decode(bytes);
        if (m instanceof ClientOpen) {
          ctx.writeAndFlush(Unpooled.wrappedBuffer(CAT));
        } else if (m instanceof Request r) {
          DecisionSet install =
              DecisionSet.of(r.context(), new DecisionFlags(false, DecisionCommand.INSTALL));
          ctx.write(
              Unpooled.wrappedBuffer(
                  CopsCodec.encode(Decision.of(r.clientType(), true, r.handle(), install))));
          ctx.writeAndFlush( // pushed right behind the answer, in the same segment
              Unpooled.wrappedBuffer(
                  CopsCodec.encode(Decision.of(r.clientType(), false, r.handle(), install))));
        }
      }
    }
  }

  @Test
  void anAnswerIsHandedOverBeforeThePushThatFollowsIt() throws Exception {
    EventLoopGroup group = Transport.NIO.group(1);
    ScheduledExecutorService work = Threads.owner("answer-order");
    List<String> handled = new CopyOnWriteArrayList<>();
    try {
      Channel server = pdp(group);
      CountDownLatch pushed = new CountDownLatch(20);
      PepListener listener =
          new PepListener() {
            @Override
            public void decisionChanged(String handle, PepDecision decision) {
              work.execute(() -> handled.add("push " + handle)); // as TunnelAgent hands over
              pushed.countDown();
            }
          };
      Context ctx = new Context(Context.R_INCOMING, 0);
      try (PepClient pep =
          PepClient.builder()
              .pdp((InetSocketAddress) server.localAddress())
              .pepId("agent-1")
              .listener(listener)
              .requestTimeout(Duration.ofSeconds(10))
              .build()) {
        pep.open().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 20; i++) {
          String h = "h" + i;
          pep.exchange(
              h,
              ctx,
              AccessRequest.of(AccessOperation.ACCESS, "alice").toClientSI(),
              work,
              (d, e) -> handled.add("answer " + h));
        }
        // the calling thread "resumes" only once every push has arrived
        assertTrue(pushed.await(10, TimeUnit.SECONDS), "the PDP's pushes arrived");
        CompletableFuture.runAsync(() -> {}, work).get(10, TimeUnit.SECONDS); // work drained
        for (int i = 0; i < 20; i++) {
          int answer = handled.indexOf("answer h" + i);
          int push = handled.indexOf("push h" + i);
          assertTrue(answer >= 0 && answer < push, "h" + i + ": " + handled);
        }

        // the future form leaves the order to the thread that registers the continuation: one
        // that runs after the push was handed over handles the answer after it
        CountDownLatch late = new CountDownLatch(1);
        handled.clear();
        CompletableFuture<PepDecision> f =
            pep.exchange(
                "late", ctx, AccessRequest.of(AccessOperation.ACCESS, "alice").toClientSI());
        f.get(10, TimeUnit.SECONDS);
        dev.portcullis.support.Waits.await().until(() -> handled.contains("push late"));
        f.thenRunAsync(() -> handled.add("answer late"), work).thenRun(late::countDown);
        assertTrue(late.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("push late", "answer late"), handled);
      }
      server.close().sync();
    } finally {
      work.shutdownNow();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
