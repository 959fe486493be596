package dev.portcullis.active.net;

import dev.portcullis.support.AcceptFailures;
import dev.portcullis.support.Binding;
import dev.portcullis.support.ConnectionSlots;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS server of the Authorization Server and the Code Server, on Netty with every limit
 * explicit: TLS 1.3 only (client certificates required or not), at most {@code maxConnections}
 * connections and {@code maxPerAddress} from one address, the oldest idle one making room for a new
 * one ({@link ConnectionSlots}: one host cannot take every slot with slow connections), a request's
 * headers and body must all arrive within {@code requestTimeout} of the connection opening or the
 * previous answer (slowloris), headers at most {@code maxHeaderBytes} (431), bodies at most {@code
 * maxBodyBytes} (413, chunked or not, before they are read). Handlers run on a small pool of their
 * own, never on the event loop. Every refusal is counted ({@link #stats}).
 *
 * <p>It binds in {@link #bind} but accepts nobody until {@link #start}: a server takes its port
 * before it changes anything shared, and serves only once it is ready.
 */
public final class HttpsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpsEndpoint.class);

  /** The limits; {@link #DEFAULT} suits the AS and CS, whose requests are a few hundred bytes. */
  public record Limits(
      int maxConnections,
      int maxPerAddress,
      int maxHeaderBytes,
      int maxBodyBytes,
      Duration requestTimeout,
      int handlerThreads) {
    public static final Limits DEFAULT =
        new Limits(256, 32, 8 * 1024, 64 * 1024, Duration.ofSeconds(10), 4);
  }

  /** A complete request as a handler sees it. */
  public record Request(
      String method,
      String path,
      Map<String, String> headers,
      byte[] body,
      X509Certificate peer,
      InetSocketAddress remote) {
    /** A header's value (names are case-insensitive), or null. */
    public String header(String name) {
      for (Map.Entry<String, String> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          return e.getValue();
        }
      }
      return null;
    }

    /** The CN of the client's certificate, or null if it showed none. */
    public String peerName() {
      return peer == null ? null : Https.commonName(peer);
    }
  }

  /** An answer. */
  public record Response(int status, String contentType, byte[] body) {
    public static Response json(int status, Object body) {
      try {
        return new Response(status, "application/json", Https.JSON.writeValueAsBytes(body));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /** {@code {"error": message}}. */
    public static Response error(int status, String message) {
      return json(status, Map.of("error", message));
    }
  }

  /** Answers a request. An exception becomes a 500 with no detail (the detail is logged). */
  @FunctionalInterface
  public interface Handler {
    Response handle(Request request) throws Exception;
  }

  /** Refusals counted by kind. */
  public static final class Stats {
    public final LongAdder connectionsRefused = new LongAdder();
    public final LongAdder timedOut = new LongAdder();
    public final LongAdder tooLarge = new LongAdder();
    public final LongAdder badRequests = new LongAdder();

    @Override
    public String toString() {
      return "connections refused "
          + connectionsRefused.sum()
          + ", timed out "
          + timedOut.sum()
          + ", too large "
          + tooLarge.sum()
          + ", malformed "
          + badRequests.sum();
    }
  }

  private final String name;
  private final Limits limits;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ThreadPoolExecutor handlers;
  private final Channel server;
  private final ConnectionSlots slots;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Stats stats = new Stats();

  private HttpsEndpoint(
      String name,
      Limits limits,
      EventLoopGroup boss,
      EventLoopGroup workers,
      Channel server,
      ThreadPoolExecutor handlers) {
    this.name = name;
    this.limits = limits;
    this.boss = boss;
    this.workers = workers;
    this.server = server;
    this.handlers = handlers;
    this.slots = new ConnectionSlots(limits.maxConnections(), limits.maxPerAddress());
  }

  /**
   * Binds {@code address}; connections wait in the backlog until {@link #start}.
   *
   * @throws IOException naming the address if it cannot be bound
   */
  public static HttpsEndpoint bind(
      InetSocketAddress address,
      SSLContext context,
      boolean clientAuth,
      String name,
      Limits limits,
      Handler handler)
      throws IOException {
    Transport transport = Transport.best();
    EventLoopGroup boss = transport.group(1);
    EventLoopGroup workers = transport.group(2);
    // Handlers run here, never on an event loop; at most 1,024 requests wait for a thread.
    ThreadPoolExecutor handlers =
        new ThreadPoolExecutor(
            limits.handlerThreads(),
            limits.handlerThreads(),
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(1024),
            Threads.daemon(name + "-handler"));
    HttpsEndpoint[] self = new HttpsEndpoint[1];
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 128)
            .option(ChannelOption.AUTO_READ, false) // accept nobody before start()
            .handler(new AcceptFailures(name, Clock.systemUTC())) // this factory's default
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    self[0].init(ch, context, clientAuth, handler);
                  }
                });
    Channel server;
    try {
      server = b.bind(address).sync().channel();
    } catch (Exception e) {
      boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      handlers.shutdownNow();
      throw Binding.failed(address, name, e);
    }
    self[0] = new HttpsEndpoint(name, limits, boss, workers, server, handlers);
    return self[0];
  }

  /** Starts accepting connections. */
  public void start() {
    server.config().setAutoRead(true);
    server.read();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  public Stats stats() {
    return stats;
  }

  private void init(SocketChannel ch, SSLContext context, boolean clientAuth, Handler handler) {
    if (!slots.admit(ch)) { // the oldest idle one of the address makes room, if there is one
      stats.connectionsRefused.increment();
      return;
    }
    children.add(ch);
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    engine.setEnabledProtocols(new String[] {"TLSv1.3"});
    engine.setNeedClientAuth(clientAuth);
    SslHandler tls = new SslHandler(engine);
    tls.setHandshakeTimeoutMillis(limits.requestTimeout().toMillis());
    ch.pipeline()
        .addLast("tls", tls)
        .addLast("http", new HttpServerCodec(4096, limits.maxHeaderBytes(), 8192))
        .addLast("deadline", new RequestDeadline(limits.requestTimeout(), stats.timedOut))
        .addLast("continue", new HttpServerExpectContinueHandler())
        .addLast("aggregate", new Aggregator(limits.maxBodyBytes()))
        .addLast("handler", new HttpsDispatch(name, handler, handlers, stats));
  }

  /** Netty's aggregator, counting what it refuses as too large (it answers 413 itself). */
  private final class Aggregator extends HttpObjectAggregator {
    Aggregator(int max) {
      super(max);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized)
        throws Exception {
      stats.tooLarge.increment();
      super.handleOversizedMessage(ctx, oversized);
      ctx.channel().close(); // nothing after an oversized body is read
    }
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    // Connections first, while their event loops and handler threads still run.
    children.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    handlers.shutdownNow();
    boss.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    log.debug("{} stopped: {}", name, stats);
  }
}
