package dev.portcullis.pdp.connection;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.KeepAlive;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a connection alive or ends it (RFC 2748 sections 2.2.9 and 4.4): the PEP must open a client
 * type within the handshake time; once the PDP has accepted one, it watches for the keep-alive
 * period passing with nothing read, and then closes every client type with "communication failure".
 * Keep-alives are echoed here.
 *
 * <p>The idle watch is this handler's own, not Netty's {@code IdleStateHandler}: it reads the time
 * from the server's clock ({@link PdpContext#nanoTime}) and its timer runs on the connection's
 * loop, so a test moves both together (Netty 4.1's handler reads {@code System.nanoTime} itself,
 * and a test of the timer had to sleep through it); and it is no extra handler every message passes
 * through (issue 44). The time is read once per read burst, when it completes.
 */
public final class Liveness extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(Liveness.class);

  private final PepLink link;
  private ScheduledFuture<?> openDeadline;
  private boolean accepted;
  private long keepAlive; // nanoseconds; 0: no watch
  private long lastRead; // the server's clock, when the last read burst completed
  private ScheduledFuture<?> idleCheck;

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
    if (idleCheck != null) {
      idleCheck.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (keepAlive > 0) {
      lastRead = link.server.nanoTime();
    }
    ctx.fireChannelReadComplete();
  }

  /** The keep-alive watch: idle once {@link #keepAlive} has passed since the last read. */
  private void checkIdle(ChannelHandlerContext ctx) {
    long quiet = link.server.nanoTime() - lastRead;
    if (quiet < keepAlive) {
      idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), keepAlive - quiet, NANOSECONDS);
      return;
    }
    idleCheck = null;
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
      keepAlive = link.server.limits().keepAlive().toNanos();
      if (keepAlive > 0) {
        lastRead = link.server.nanoTime();
        idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), keepAlive, NANOSECONDS);
      }
    }
    ctx.write(msg, promise);
  }

  /** The keep-alive period this connection is watched for (zero: none, or not yet accepted). */
  public long keepAliveNanos() {
    return keepAlive;
  }
}
