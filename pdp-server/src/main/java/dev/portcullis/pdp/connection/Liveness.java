package dev.portcullis.pdp.connection;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.KeepAlive;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a connection alive or ends it (RFC 2748 sections 2.2.9 and 4.4): the PEP must open a client
 * type within the handshake time; once the PDP has accepted one, a Netty {@link IdleStateHandler}
 * watches for the keep-alive period passing with nothing read, and this handler then closes every
 * client type with "communication failure". Keep-alives are echoed here.
 */
public final class Liveness extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(Liveness.class);

  /** The name of the idle watch in the pipeline, right after the decoder. */
  public static final String IDLE = "idle";

  private final PepLink link;
  private ScheduledFuture<?> openDeadline;
  private boolean accepted;

  public Liveness(PepLink link) {
    this.link = link;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    long ms = link.server.limits().handshake().toMillis();
    openDeadline =
        ctx.executor()
            .schedule(
                () -> {
                  link.server
                      .refusals()
                      .warn(
                          "handshake timeouts",
                          "closing {}: no client type opened within {} ms",
                          link.peer,
                          ms);
                  link.audit("dropped", null, "reason", "handshake timeout");
                  ctx.close();
                },
                ms,
                TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (openDeadline != null) {
      openDeadline.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof KeepAlive) {
      ctx.write(new KeepAlive(true, null)); // none is read once the PDP is closing
      return;
    }
    ctx.fireChannelRead(msg);
  }

  /** The first Client-Accept of a real client type ends the handshake and starts keep-alive. */
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!accepted && msg instanceof ClientAccept a && a.clientType() != 0) {
      accepted = true;
      if (openDeadline != null) {
        openDeadline.cancel(false);
      }
      long ka = link.server.limits().keepAlive().toNanos();
      if (ka > 0) {
        ctx.pipeline()
            .addAfter("decoder", IDLE, new IdleStateHandler(ka, 0, 0, TimeUnit.NANOSECONDS));
      }
    }
    ctx.write(msg, promise);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
      if (!link.closing()) {
        String pepId = link.pepId();
        log.warn(
            "PEP {} ({}) dropped: nothing received for {} s (keep-alive timer)",
            pepId,
            link.peer,
            link.server.limits().keepAlive().getSeconds());
        link.audit("dropped", pepId, "reason", "keep-alive timeout");
        link.closeAll(ErrorCode.COMMUNICATION_FAILURE);
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }
}
