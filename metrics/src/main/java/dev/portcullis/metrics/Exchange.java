package dev.portcullis.metrics;

import dev.portcullis.support.ConnectionSlots;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request, one answer, then close: the deadline runs from the connection's opening to the
 * request's head, and again from the answer to its last byte taken by the socket.
 */
final class Exchange extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(Exchange.class);
  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";

  /** Longest a route may take to answer (its own timeouts should be shorter). */
  static final int ROUTE_SECONDS = 30;

  private final MetricsEndpoint endpoint;

  Exchange(MetricsEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  private ScheduledFuture<?> deadline;
  private boolean answered;
  private HttpRoute routed; // the route whose request's body is being read
  private HttpRequest request;
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    arm(ctx);
  }

  private void arm(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    deadline =
        ctx.executor()
            .schedule(
                () -> {
                  endpoint.refused
                      .increment(); // too slow to send its request, or to take its answer
                  ctx.close();
                },
                MetricsEndpoint.MAX_EXCHANGE_SECONDS,
                TimeUnit.SECONDS);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest r && !answered) {
        head(ctx, r);
      } else if (msg instanceof HttpContent c && routed != null) {
        body(ctx, c);
      }
      // else a body nobody asked for, or anything after the one request: not read into anything
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void head(ChannelHandlerContext ctx, HttpRequest r) {
    answered = true; // one request a connection: a second one's head is not looked at
    ConnectionSlots.serving(ctx.channel(), true); // its request is in: never closed for room
    if (!r.decoderResult().isSuccess()) {
      endpoint.refused.increment();
      boolean tooLong = r.decoderResult().cause() instanceof TooLongFrameException;
      answer(ctx, r, tooLong ? 431 : 400, tooLong ? "request too long\n" : "bad request\n");
      return;
    }
    String path = new QueryStringDecoder(r.uri()).path();
    for (HttpRoute route : endpoint.routes) {
      if (path.equals(route.prefix()) || path.startsWith(route.prefix() + "/")) {
        if (!route.methods().contains(r.method().name())) {
          answer(ctx, r, 405, "method not allowed\n", String.join(", ", route.methods()));
          return;
        }
        if (HttpUtil.getContentLength(r, 0L) > HttpRoute.MAX_BODY) {
          endpoint.refused.increment();
          answer(ctx, r, 413, "body too long (at most " + HttpRoute.MAX_BODY + " bytes)\n");
          return;
        }
        routed = route; // its body is read to the end, then it is handed over whole
        request = r;
        return;
      }
    }
    ctx.channel().config().setAutoRead(false); // nothing more is read from this connection
    route(ctx, r, path);
  }

  private void body(ChannelHandlerContext ctx, HttpContent c) {
    ByteBuf in = c.content();
    if (body.size() + in.readableBytes() > HttpRoute.MAX_BODY) {
      endpoint.refused.increment();
      HttpRequest r = request;
      routed = null;
      answer(ctx, r, 413, "body too long (at most " + HttpRoute.MAX_BODY + " bytes)\n");
      return;
    }
    byte[] chunk = new byte[in.readableBytes()];
    in.readBytes(chunk);
    body.write(chunk, 0, chunk.length);
    if (c instanceof LastHttpContent) {
      dispatch(ctx);
    }
  }

  /** The routed request is whole: its handler answers, within its own time, not the read's. */
  private void dispatch(ChannelHandlerContext ctx) {
    HttpRoute route = routed;
    HttpRequest r = request;
    routed = null;
    ctx.channel().config().setAutoRead(false);
    deadline.cancel(false);
    QueryStringDecoder q = new QueryStringDecoder(r.uri());
    HttpRoute.Request req =
        new HttpRoute.Request(
            r.method().name(),
            q.path(),
            q.parameters(),
            r.headers().get(HttpHeaderNames.AUTHORIZATION),
            r.headers().get(HttpHeaderNames.CONTENT_TYPE),
            r.headers().get(HttpHeaderNames.ORIGIN),
            r.headers().get(HttpHeaderNames.HOST),
            body.toByteArray(),
            (InetSocketAddress) ctx.channel().remoteAddress(),
            ClientNames.of(ctx.pipeline().get(SslHandler.class)));
    CompletableFuture<HttpRoute.Reply> reply;
    try {
      reply = route.handle(req);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply
        .orTimeout(ROUTE_SECONDS, TimeUnit.SECONDS)
        .whenComplete(
            (ok, failed) ->
                ctx.executor()
                    .execute(
                        () -> {
                          if (ok != null) {
                            send(ctx, r, ok.status(), ok.contentType(), ok.body(), ok.headers());
                          } else if (failed instanceof TimeoutException
                              || failed.getCause() instanceof TimeoutException) {
                            answer(ctx, r, 504, "no answer within " + ROUTE_SECONDS + " s\n");
                          } else {
                            log.warn("{} {} failed: {}", r.method(), q.path(), failed.toString());
                            answer(ctx, r, 500, "internal error\n");
                          }
                        }));
  }

  private void route(ChannelHandlerContext ctx, HttpRequest r, String path) {
    boolean known = path.equals("/metrics") || path.equals("/health") || path.equals("/ready");
    if (!known) {
      answer(ctx, r, 404, "not found\n");
      return;
    }
    HttpMethod m = r.method();
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      answer(ctx, r, 405, "method not allowed\n", "GET, HEAD");
      return;
    }
    switch (path) {
      case "/health" -> answer(ctx, r, 200, "ok\n");
      case "/ready" -> ready(ctx, r);
      default -> scrape(ctx, r);
    }
  }

  private void ready(ChannelHandlerContext ctx, HttpRequest r) {
    List<String> failing = endpoint.failingChecks();
    answer(
        ctx,
        r,
        failing.isEmpty() ? 200 : 503,
        failing.isEmpty() ? "ready\n" : String.join("\n", failing) + "\n");
  }

  private void scrape(ChannelHandlerContext ctx, HttpRequest r) {
    try {
      endpoint.scrape(b -> answerLater(ctx, r, b));
    } catch (RejectedExecutionException e) {
      answer(ctx, r, 503, "busy: scrapes queued\n");
    }
  }

  /** A scrape's text, back on the connection's loop (from the scrape thread). */
  private void answerLater(ChannelHandlerContext ctx, HttpRequest r, byte[] b) {
    try {
      ctx.executor().execute(() -> send(ctx, r, 200, PROMETHEUS, b, Map.of()));
    } catch (RejectedExecutionException stopped) {
      // the endpoint closed while this scrape ran (and its connection with it): nobody to answer
    }
  }

  private void answer(ChannelHandlerContext ctx, HttpRequest r, int status, String text) {
    answer(ctx, r, status, text, null);
  }

  private void answer(
      ChannelHandlerContext ctx, HttpRequest r, int status, String text, String allow) {
    send(
        ctx,
        r,
        status,
        TEXT,
        text.getBytes(StandardCharsets.UTF_8),
        allow == null ? Map.of() : Map.of(HttpHeaderNames.ALLOW.toString(), allow));
  }

  /** Answers and closes: one request a connection. */
  private void send(
      ChannelHandlerContext ctx,
      HttpRequest r,
      int status,
      String type,
      byte[] b,
      Map<String, String> headers) {
    ctx.channel().config().setAutoRead(false); // nothing more is read from this connection
    boolean head = r.method().equals(HttpMethod.HEAD);
    FullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(status),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(b));
    res.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, type)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, b.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    headers.forEach((n, v) -> res.headers().set(n, v));
    arm(ctx); // the answer must be taken within the limit too
    ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // a reset or a write to a gone client: its problem, nobody else's
  }
}
