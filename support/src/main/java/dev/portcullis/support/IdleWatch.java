package dev.portcullis.support;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Says when a channel has been quiet for a period: fires an {@link Event} down the pipeline, and
 * again every period while it stays quiet. {@link #reads} watches what the peer sends (a keep-alive
 * timer: RFC 2748 section 4.4, PKT-SP-MM's KA timer); {@link #traffic} watches both ways, a write
 * or any progress of the bytes queued to the peer counting as traffic (the proxy's idle timeout: a
 * slow reader that takes bytes is not idle, a stalled one is).
 *
 * <p>It reads no clock. The period is cut into {@value #SLICES} slices on the loop's fixed-rate
 * timer; traffic marks the slice, and {@value #SLICES} unmarked slices running are the period. So
 * the event comes after one period and at most an eighth of it later than that, counted from the
 * last traffic, never earlier, and a test moves it with the loop's time alone ({@code
 * EmbeddedChannel.advanceTimeBy}), where Netty 4.1's {@code IdleStateHandler} reads {@code
 * System.nanoTime} itself and a test had to sleep through it. A read or a write costs one field
 * written; the queued bytes are looked at once a slice.
 */
public final class IdleWatch extends ChannelDuplexHandler {
  /** What the watch says. */
  public enum Event {
    /** Nothing read for the period ({@link #reads}). */
    READ_IDLE,
    /** Nothing read, written, or taken by the peer for the period ({@link #traffic}). */
    ALL_IDLE
  }

  /** Slices a period is cut into: how late, at most, in eighths of it, the event may come. */
  static final int SLICES = 8;

  private final long slice; // nanoseconds
  private final boolean writes; // writes and the output's progress count as traffic
  private boolean active; // since the last slice began
  private int quiet; // slices running without traffic
  private ScheduledFuture<?> tick;
  // the output as the last slice saw it (traffic): the message being written, its progress, the
  // bytes pending
  private Object current;
  private long progress;
  private long pending;

  private IdleWatch(Duration period, boolean writes) {
    long nanos = period.toNanos();
    if (nanos < SLICES) {
      throw new IllegalArgumentException("idle period " + period + " (expected: at least 8 ns)");
    }
    this.slice = nanos / SLICES;
    this.writes = writes;
  }

  /** Watches for {@code period} with nothing read (at least 8 ns): {@link Event#READ_IDLE}. */
  public static IdleWatch reads(Duration period) {
    return new IdleWatch(period, false);
  }

  /**
   * Watches for {@code period} with nothing read, nothing written, and no progress of what is
   * queued to the peer: {@link Event#ALL_IDLE}.
   */
  public static IdleWatch traffic(Duration period) {
    return new IdleWatch(period, true);
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
    active = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (writes) {
      active = true;
    }
    ctx.write(msg, promise);
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
      active = false;
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
    boolean moved = writes && outputMoved(ctx); // looked at every slice: the last seen kept current
    if (active || moved) {
      active = false;
      quiet = 0;
    } else if (++quiet == SLICES) {
      quiet = 0;
      ctx.fireUserEventTriggered(writes ? Event.ALL_IDLE : Event.READ_IDLE);
    }
  }

  /** True if the bytes queued to the peer moved since the last slice (some were taken). */
  private boolean outputMoved(ChannelHandlerContext ctx) {
    ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
    if (out == null) {
      return false;
    }
    Object c = out.current();
    long p = out.currentProgress();
    long n = out.totalPendingWriteBytes();
    boolean moved = c != current || p != progress || n != pending;
    current = c;
    progress = p;
    pending = n;
    return moved;
  }

  private void stop() {
    if (tick != null) {
      tick.cancel(false);
      tick = null;
    }
    current = null;
  }
}
