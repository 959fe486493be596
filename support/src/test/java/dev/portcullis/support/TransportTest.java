package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(30)
class TransportTest {
  @Test
  void namesAUserGivesAreRead() {
    assertSame(Transport.EPOLL, Transport.parse(" EPOLL "));
    assertSame(Transport.NIO, Transport.parse("NIO"));
    assertNull(Transport.parse("kqueue"));
    assertNull(Transport.parse("io_uring"), "not with Netty 4.1 (docs/benchmarks.md)");
  }

  @Test
  void anUnknownOrUnavailableChoiceFallsBackToTheDefault() {
    Transport fallback = Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;
    assertSame(fallback, Transport.choose(null, r -> {}), "the default");
    assertSame(fallback, Transport.choose("kqueue", r -> {}), "not a transport: the default");
    assertSame(Transport.NIO, Transport.choose("nio", r -> {}), "NIO is always there");
    assertSame(fallback, Transport.choose("io_uring", r -> {}));
  }

  @Test
  void aLoopThatIsNoneOfOursIsNamedAsSuch() {
    EmbeddedChannel ch = new EmbeddedChannel();
    assertNull(Transport.of(ch.eventLoop()));
    ch.finishAndReleaseAll();
  }

  /** Each transport that loads here makes loops it recognises, and carries bytes both ways. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void eachTransportThatLoadsCarriesAnEcho(Transport t) throws Exception {
    assumeTrue(t.available(), () -> t + " is not available here: " + t.unavailable());
    EventLoopGroup group = t.group(1);
    try {
      assertSame(t, Transport.of(group));
      assertSame(t, Transport.of(group.next()));
      Channel server =
          new ServerBootstrap()
              .group(group)
              .channel(t.serverChannel())
              .childHandler(
                  new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                      ctx.writeAndFlush(msg);
                    }
                  })
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
              .sync()
              .channel();
      CompletableFuture<String> echoed = new CompletableFuture<>();
      Channel client =
          new Bootstrap()
              .group(group)
              .channel(t.socketChannel())
              .handler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline()
                          .addLast(
                              new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                  ByteBuf b = (ByteBuf) msg;
                                  echoed.complete(
                                      b.toString(java.nio.charset.StandardCharsets.US_ASCII));
                                  b.release();
                                }
                              });
                    }
                  })
              .connect(server.localAddress())
              .sync()
              .channel();
      client.writeAndFlush(Unpooled.copiedBuffer(new byte[] {'C', 'O', 'P', 'S'}));
      assertEquals("COPS", echoed.get(10, TimeUnit.SECONDS));
      assertSame(t.socketChannel(), client.getClass(), "the channel class the transport names");
      client.close().sync();
      server.close().sync();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
