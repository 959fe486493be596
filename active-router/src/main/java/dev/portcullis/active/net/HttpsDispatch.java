package dev.portcullis.active.net;

import dev.portcullis.active.net.HttpsEndpoint.Handler;
import dev.portcullis.active.net.HttpsEndpoint.Request;
import dev.portcullis.active.net.HttpsEndpoint.Response;
import dev.portcullis.active.net.HttpsEndpoint.Stats;
import dev.portcullis.support.ConnectionSlots;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands complete requests to the handler pool, one at a time per connection (answers leave in the
 * order requests came, pipelined or not), and writes the answers back on the event loop.
 */
final class HttpsDispatch extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** Requests read ahead on one connection while one is being answered; beyond it, close. */
  private static final int MAX_QUEUED = 8;

  private static final Logger log = LoggerFactory.getLogger(HttpsDispatch.class);

  private final String name;
  private final Handler handler;
  private final Executor handlers;
  private final Stats stats;
  private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
  private boolean busy;

  HttpsDispatch(String name, Handler handler, Executor handlers, Stats stats) {
    this.name = name;
    this.handler = handler;
    this.handlers = handlers;
    this.stats = stats;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    ConnectionSlots.serving(ctx.channel(), true); // not idle: never closed to make room
    if (!req.decoderResult().isSuccess()) {
      stats.badRequests.increment();
      Throwable cause = req.decoderResult().cause();
      boolean tooLong = cause instanceof TooLongFrameException;
      send(
          ctx.channel(),
          tooLong
              ? Response.error(431, "request line or headers too long")
              : Response.error(400, "malformed HTTP request"),
          false);
      return;
    }
    byte[] body = new byte[req.content().readableBytes()];
    req.content().readBytes(body);
    Map<String, String> headers = new LinkedHashMap<>();
    req.headers().forEach(h -> headers.putIfAbsent(h.getKey(), h.getValue()));
    Request r =
        new Request(
            req.method().name(),
            new QueryStringDecoder(req.uri()).path(),
            headers,
            body,
            peer(ctx.channel()),
            (InetSocketAddress) ctx.channel().remoteAddress());
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    Runnable job = () -> answer(ctx, r, keepAlive);
    if (busy) {
      if (queued.size() >= MAX_QUEUED) {
        stats.badRequests.increment();
        ctx.close();
        return;
      }
      queued.add(job);
      return;
    }
    busy = true;
    submit(ctx, job);
  }

  private void submit(ChannelHandlerContext ctx, Runnable job) {
    try {
      handlers.execute(job);
    } catch (RejectedExecutionException e) {
      stats.connectionsRefused.increment(); // the pool is full or stopping
      send(ctx.channel(), Response.error(503, "busy, try again"), false);
    }
  }

  /** On a handler thread: the answer, then back to the event loop to write it. */
  private void answer(ChannelHandlerContext ctx, Request r, boolean keepAlive) {
    Response answer;
    try {
      answer = handler.handle(r);
    } catch (Exception e) {
      log.warn("{}: {} {} failed: {}", name, r.method(), r.path(), e.toString());
      answer = Response.error(500, "internal error");
    } finally {
      Arrays.fill(r.body(), (byte) 0);
    }
    Response done = answer;
    try {
      ctx.executor()
          .execute(
              () -> {
                send(ctx.channel(), done, keepAlive);
                Runnable next = queued.poll();
                if (next == null) {
                  busy = false;
                  ConnectionSlots.serving(ctx.channel(), false); // idle again, between requests
                } else {
                  submit(ctx, next);
                }
              });
    } catch (RejectedExecutionException stopping) {
      // the server is closing: the connection goes with it
    }
  }

  /**
   * Writes an answer; unless {@code keepAlive}, says {@code Connection: close} and closes after it.
   * A 204 carries neither a body nor its headers.
   */
  static void send(Channel ch, Response answer, boolean keepAlive) {
    if (!ch.isActive()) {
      return;
    }
    FullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(answer.status()),
            Unpooled.wrappedBuffer(answer.body()));
    if (answer.status() != 204) {
      res.headers()
          .set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
          .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
    }
    if (!keepAlive) {
      res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    var f = ch.writeAndFlush(res);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private static X509Certificate peer(Channel ch) {
    SslHandler tls = ch.pipeline().get(SslHandler.class);
    try {
      Certificate[] chain = tls.engine().getSession().getPeerCertificates();
      return (X509Certificate) chain[0];
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // TLS failures, resets: the peer's problem, one debug line; the server goes on.
    log.debug(
        "{}: connection from {} failed: {}", name, ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
