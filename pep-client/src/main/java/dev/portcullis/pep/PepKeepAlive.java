package dev.portcullis.pep;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.support.IdleWatch;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PEP's side of RFC 2748 section 4.4: once the PDP accepts with a keep-alive timer, sends a KA
 * at a random point between 1/4 and 3/4 of it, over and over, and drops a PDP that stays silent for
 * the whole timer ({@link IdleWatch} watches the reads, on the loop's timer alone, so a test moves
 * it with the loop's time). A timer of 0 means no keep-alives.
 */
final class PepKeepAlive extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(PepKeepAlive.class);

  private final String pepId;
  private boolean started;
  private int seconds;

  PepKeepAlive(String pepId) {
    this.pepId = pepId;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!started
        && msg instanceof ClientAccept a
        && a.clientType() != 0
        && !(a.integrity() instanceof IntegrityTls)) {
      started = true;
      seconds = a.kaTimer().seconds();
      if (seconds > 0) {
        ctx.pipeline().addBefore(ctx.name(), "idle", IdleWatch.reads(Duration.ofSeconds(seconds)));
        scheduleNext(ctx);
      }
    }
    ctx.fireChannelRead(msg);
  }

  private void scheduleNext(ChannelHandlerContext ctx) {
    long ka = TimeUnit.SECONDS.toMillis(seconds);
    long delay = ThreadLocalRandom.current().nextLong(ka / 4, ka * 3 / 4 + 1);
    ctx.executor()
        .schedule(
            () -> {
              if (ctx.channel().isActive()) {
                ctx.writeAndFlush(new KeepAlive(false, null));
                scheduleNext(ctx);
              }
            },
            delay,
            TimeUnit.MILLISECONDS);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt == IdleWatch.Event.READ_IDLE) {
      SocketAddress pdp = ctx.channel().remoteAddress();
      log.warn("PEP {}: PDP {} silent for {} s; dropping the connection", pepId, pdp, seconds);
      ctx.writeAndFlush(ClientClose.of(0, ErrorCode.COMMUNICATION_FAILURE, 0));
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }
}
