package dev.portcullis.pep;

import static dev.portcullis.support.Waits.await;

import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A PEP session run against a scripted PDP on loopback: every message the PEP sends, as hex, one
 * line per message. The PDP answers OPN with CAT (keep-alive 0: no timers), each REQ with an
 * Install DEC, and nothing else.
 */
final class PepWireScript {
  private PepWireScript() {}

  /** The answers, pre-encoded: CAT (KA 0) and an Install DEC template patched per handle. */
  private static final byte[] CAT = hex("1107c0a50000001000080a0100000000");

  static String run() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    EventLoopGroup group = Transport.NIO.group(1);
    try {
      Channel server =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(
                              new ChannelInboundHandlerAdapter() {
                                private final ByteBuf pending = Unpooled.buffer();

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                  ByteBuf in = (ByteBuf) msg;
                                  pending.writeBytes(in);
                                  in.release();
                                  // Framed by the COPS length (bytes 4 to 7 of the header).
                                  while (pending.readableBytes() >= 8
                                      && pending.readableBytes()
                                          >= pending.getInt(pending.readerIndex() + 4)) {
                                    byte[] bytes =
                                        new byte[pending.getInt(pending.readerIndex() + 4)];
                                    pending.readBytes(bytes);
                                    answer(ctx, bytes);
                                  }
                                }

                                private void answer(ChannelHandlerContext ctx, byte[] bytes) {
                                  seen.add(ByteBufUtil.hexDump(bytes));
                                  try {
                                    CopsMessage m = CopsCodec.decode(bytes);
                                    if (m instanceof ClientOpen) {
                                      ctx.writeAndFlush(Unpooled.wrappedBuffer(CAT));
                                    } else if (m instanceof Request r) {
                                      DecisionFlags install =
                                          new DecisionFlags(false, DecisionCommand.INSTALL);
                                      ctx.writeAndFlush(
                                          Unpooled.wrappedBuffer(
                                              CopsCodec.encode(
                                                  Decision.of(
                                                      r.clientType(),
                                                      true,
                                                      r.handle(),
                                                      DecisionSet.of(r.context(), install)))));
                                    }
                                  } catch (Exception e) {
                                    seen.add("error: " + e);
                                  }
                                }
                              });
                    }
                  })
              .bind(InetAddress.getLoopbackAddress(), 0)
              .sync()
              .channel();
      Context ctx = new Context(Context.R_INCOMING, 0);
      try (PepClient pep =
          PepClient.builder()
              .pdp((InetSocketAddress) server.localAddress())
              .pepId("gw-1")
              .requestTimeout(Duration.ofSeconds(10))
              .build()) {
        pep.open().get(10, TimeUnit.SECONDS);
        pep.request("h1", ctx, AccessRequest.of(AccessOperation.ACCESS, "alice"))
            .get(10, TimeUnit.SECONDS);
        pep.report("h1", ReportType.SUCCESS);
        pep.request("h2", ctx, AccessRequest.of(AccessOperation.LOGIN, "bob"))
            .get(10, TimeUnit.SECONDS);
        pep.delete("h2", ReasonCode.TEAR);
        pep.installed().get(10, TimeUnit.SECONDS); // the DRQ is written by now
      }
      await().until(() -> seen.size() >= 6); // the Client-Close travels to the scripted PDP
      server.close().sync();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    return String.join("\n", seen) + "\n";
  }

  private static byte[] hex(String h) {
    return ByteBufUtil.decodeHexDump(h);
  }
}
