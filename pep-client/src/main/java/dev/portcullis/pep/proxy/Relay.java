package dev.portcullis.pep.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Moves bytes from its channel to {@code peer}, written as they come and flushed once per read
 * burst. Back-pressure both ways: as soon as the peer cannot take more (its outbound buffer is
 * above the high-water mark), this side stops reading until the peer drains below the low mark; so
 * the proxy holds at most the high-water mark plus one read per direction of a connection. A
 * half-close is passed on. (A first version read the next chunk only after the last one was
 * written: 0.29x a direct connection's streaming rate in ProxyBench.)
 */
final class Relay extends ChannelInboundHandlerAdapter {
  private final Channel peer;
  private long bytes; // read on this channel's event loop, for the audit at close

  Relay(Channel peer) {
    this.peer = peer;
  }

  /** Bytes moved so far from this channel to the peer. */
  long bytes() {
    return bytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) {
      bytes += b.readableBytes();
    }
    if (!peer.isActive()) {
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    // No promise per chunk: a failed write reaches the peer's exceptionCaught, which closes it, and
    // its channelInactive closes this side.
    peer.write(msg, peer.voidPromise());
    if (!peer.isWritable()) {
      // stop this read loop now, not at its end: a loop reads up to 16 chunks, and held to the
      // end it let the proxy hold 1.4 MB for one slow reader (PepProxyTest's slow reader)
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    peer.flush();
    if (!peer.isWritable()) {
      ctx.channel().config().setAutoRead(false); // until the peer drains
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      peer.config().setAutoRead(true); // this side drained: read from the other again
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      // The sender is done: say so to the peer, and close once both directions are done. Only
      // after everything read so far has gone out: Netty's shutdownOutput fails the writes still
      // queued, which lost the end of a stream to a slow reader (PepProxyTest, on JDK 25).
      Channel self = ctx.channel();
      if (peer instanceof SocketChannel s && s.isActive()) {
        s.writeAndFlush(Unpooled.EMPTY_BUFFER)
            .addListener(
                (ChannelFuture written) -> {
                  if (!written.isSuccess()) {
                    ctx.close();
                    return;
                  }
                  if (self instanceof SocketChannel me && me.isOutputShutdown()) {
                    // the other direction was passed on already: closing says the rest (the
                    // FIN after what was flushed), without a shutdown of its own
                    me.close();
                    s.close();
                    return;
                  }
                  s.shutdownOutput()
                      .addListener(
                          shut -> {
                            if (self instanceof SocketChannel me && me.isOutputShutdown()) {
                              me.close(); // both directions passed on: done
                              s.close();
                            } else if (shut.isSuccess()) {
                              // the peer's end is all that is left: its EOF closes it (and this
                              // side after its last bytes, channelInactive), rather than a
                              // shutdown(SHUT_RD) of a socket both ends are done with
                              s.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
                            }
                          });
                });
      } else {
        flushThenClose(peer);
        ctx.close();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    flushThenClose(peer);
  }

  /** Closes {@code ch} once what is queued for it has gone out (a plain close drops it). */
  static void flushThenClose(Channel ch) {
    if (ch != null && ch.isActive()) {
      ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
