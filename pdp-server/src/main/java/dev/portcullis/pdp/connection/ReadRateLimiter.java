package dev.portcullis.pdp.connection;

import dev.portcullis.support.TokenBucket;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Holds a PEP to {@code max-messages-per-second}: a message over the rate waits, reading stops, and
 * the waiting messages go on, in order, as tokens come back. Nothing is dropped.
 */
public final class ReadRateLimiter extends ChannelInboundHandlerAdapter {
  private final LongSupplier clock;
  private final TokenBucket bucket;
  private final ArrayDeque<Object> backlog = new ArrayDeque<>();
  private boolean drainScheduled;

  /**
   * @param rate messages a second, which is also the burst a quiet PEP may send at once
   * @param clock nanoseconds, the clock the connection's other handlers use
   */
  public ReadRateLimiter(int rate, LongSupplier clock) {
    this.clock = clock;
    this.bucket = new TokenBucket(rate, rate, clock.getAsLong());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!backlog.isEmpty() || !bucket.tryTake(clock.getAsLong())) {
      backlog.add(msg);
      pause(ctx);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  /** Stops reading and schedules the backlog for when one token is back. */
  private void pause(ChannelHandlerContext ctx) {
    if (drainScheduled) {
      return;
    }
    drainScheduled = true;
    ctx.channel().config().setAutoRead(false);
    long wait = Math.max(1, bucket.nanosUntilToken(clock.getAsLong()));
    ctx.executor().schedule(() -> drain(ctx), wait, TimeUnit.NANOSECONDS);
  }

  private void drain(ChannelHandlerContext ctx) {
    drainScheduled = false;
    while (!backlog.isEmpty() && ctx.channel().isActive()) {
      if (!bucket.tryTake(clock.getAsLong())) {
        pause(ctx);
        ctx.flush();
        return;
      }
      ctx.fireChannelRead(backlog.poll());
    }
    ctx.flush();
    ctx.channel().config().setAutoRead(true);
  }

  /** Messages still waiting (for tests). */
  public int waiting() {
    return backlog.size();
  }
}
