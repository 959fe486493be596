package dev.portcullis.support;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Says when a channel has read nothing for a period: fires {@link Event#READ_IDLE} down the
 * pipeline, and again every period while it stays silent (a keep-alive timer: RFC 2748 section 4.4,
 * PKT-SP-MM's KA timer).
 *
 * <p>It reads no clock. The period is cut into {@value #SLICES} slices on the channel's own loop's
 * timer; a read marks the slice, and {@value #SLICES} unmarked slices running are the period. So
 * the event comes after one period and at most an eighth of it later than that, counted from the
 * last read, never earlier, and a test moves it with the loop's time ({@code
 * EmbeddedChannel.advanceTimeBy}) alone, where Netty 4.1's {@code IdleStateHandler} reads {@code
 * System.nanoTime} itself and a test had to sleep through it. A read costs one field written (the
 * handler reads the clock at none).
 */
public final class ReadIdle extends ChannelInboundHandlerAdapter {
  /** What the watch says: the event a handler after it reacts to. */
  public enum Event {
    /** Nothing read for the period. */
    READ_IDLE
  }

  /** Slices a period is cut into: how late, at most, in eighths of it, the event may come. */
  static final int SLICES = 8;

  private final long slice; // nanoseconds
  private boolean read; // since the last slice began
  private int quiet; // slices running with nothing read
  private ScheduledFuture<?> tick;

  /** Watches for {@code period} with nothing read (at least 8 ns). */
  public ReadIdle(Duration period) {
    long nanos = period.toNanos();
    if (nanos < SLICES) {
      throw new IllegalArgumentException("idle period " + period + " (expected: at least 8 ns)");
    }
    this.slice = nanos / SLICES;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    start(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    read = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    stop();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  private void start(ChannelHandlerContext ctx) {
    if (tick == null) {
      read = false;
      quiet = 0;
      // at a fixed rate: each slice's end follows the last one's, not the moment its tick ran
      tick =
          ctx.executor().scheduleAtFixedRate(() -> tick(ctx), slice, slice, TimeUnit.NANOSECONDS);
    }
  }

  private void tick(ChannelHandlerContext ctx) {
    if (tick == null) {
      return;
    }
    if (!ctx.channel().isOpen()) {
      stop();
      return;
    }
    if (read) {
      read = false;
      quiet = 0;
    } else if (++quiet == SLICES) {
      quiet = 0;
      ctx.fireUserEventTriggered(Event.READ_IDLE);
    }
  }

  private void stop() {
    if (tick != null) {
      tick.cancel(false);
      tick = null;
    }
  }
}
