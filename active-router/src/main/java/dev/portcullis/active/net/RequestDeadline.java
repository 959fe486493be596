package dev.portcullis.active.net;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Each request must be complete (headers and body) within a timeout of the connection opening or
 * the previous answer; otherwise 408 and close (a slowloris connection holds nothing for long). One
 * timer per connection, re-armed per request.
 */
final class RequestDeadline extends ChannelDuplexHandler {
  private final long timeoutMillis;
  private final LongAdder timedOut;
  private ScheduledFuture<?> timer;

  RequestDeadline(Duration timeout, LongAdder timedOut) {
    this.timeoutMillis = timeout.toMillis();
    this.timedOut = timedOut;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    arm(ctx);
  }

  private void arm(ChannelHandlerContext ctx) {
    disarm();
    timer =
        ctx.executor()
            .schedule(
                () -> {
                  timedOut.increment();
                  HttpsDispatch.send(
                      ctx.channel(), HttpsEndpoint.Response.error(408, "request too slow"), false);
                },
                timeoutMillis,
                TimeUnit.MILLISECONDS);
  }

  private void disarm() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof LastHttpContent) {
      disarm(); // complete: the handler answers, then the next request's time starts
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof LastHttpContent) {
      promise.addListener(f -> arm(ctx));
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    disarm();
    ctx.fireChannelInactive();
  }
}
