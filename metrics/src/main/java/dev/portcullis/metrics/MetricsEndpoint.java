package dev.portcullis.metrics;

import dev.portcullis.support.AcceptFailures;
import dev.portcullis.support.Binding;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A component's operator endpoint, over plain HTTP on the address its config names ({@code <metrics
 * listen="127.0.0.1:9464"/>}; loopback unless an operator says otherwise, since it tells anyone who
 * can reach it how busy the component is):
 *
 * <ul>
 *   <li>{@code GET /metrics}: every meter in the Prometheus text format (Micrometer's Prometheus
 *       registry: names with units and {@code _total} counters), the JVM's own included;
 *   <li>{@code GET /health}: 200 while the process serves requests at all (liveness);
 *   <li>{@code GET /ready}: 200 when every readiness check passes, else 503 with the failing checks
 *       one per line (policies loaded, ports bound, audit owned, store reachable...).
 * </ul>
 *
 * Exactly these paths (404 for any other, {@code /readyz} and {@code /metricsXYZ} included) and
 * exactly {@code GET} and {@code HEAD} (405 for any other method, lowercase {@code get} included).
 *
 * <p>Health probes are never starved by slow clients or scrapes. One Netty event loop reads every
 * connection without blocking, so a client that sends its request slowly holds no thread, only a
 * connection slot; {@code /health} and {@code /ready} are answered on that loop the moment their
 * request line and headers are in (nothing of a body is waited for), and a scrape runs on a thread
 * of its own. Each connection must send its request within {@value #MAX_EXCHANGE_SECONDS} s and
 * take its answer within as long again, then it is closed (one request per connection); at most
 * {@value #MAX_CONNECTIONS} are open, request lines and headers at most 8 KiB. (The JDK's HTTP
 * server this replaces read requests on its two executor threads: 20 slow connections a second kept
 * {@code /ready} waiting ~4.5 s.) Refusals are counted ({@link #refused}).
 */
public final class MetricsEndpoint extends Lifecycle.Bound {

  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  /** Longest a request may take to arrive, and its answer to be taken. */
  static final int MAX_EXCHANGE_SECONDS = 5;

  /** Connections open at once; beyond, a new one is closed at once. */
  static final int MAX_CONNECTIONS = 512;

  private static final Transport TRANSPORT = Transport.best();

  /**
   * The histogram buckets of every decision-latency timer (the PDP's decisions, the proxy's round
   * trips to its PDP): 5 us, the fastest decision on loopback, to 5 s, an asynchronous engine's
   * default decision timeout; one series per bucket, so a scrape stays small.
   */
  public static final List<Duration> LATENCY_BUCKETS =
      List.of(
          Duration.ofNanos(5_000),
          Duration.ofNanos(10_000),
          Duration.ofNanos(25_000),
          Duration.ofNanos(50_000),
          Duration.ofNanos(100_000),
          Duration.ofNanos(250_000),
          Duration.ofNanos(500_000),
          Duration.ofMillis(1),
          Duration.ofMillis(5),
          Duration.ofMillis(25),
          Duration.ofMillis(100),
          Duration.ofMillis(500),
          Duration.ofSeconds(1),
          Duration.ofSeconds(5));

  /** A readiness check: null when ready, else what is not. */
  public interface Check extends Supplier<String> {}

  private record Named(String name, Check check) {}

  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gc;
  private final EventLoopGroup loop;
  private final ExecutorService scrapes;
  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger open = new AtomicInteger();
  private final LongAdder refused = new LongAdder();
  private final List<Named> checks = new CopyOnWriteArrayList<>();
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      JvmGcMetrics gc,
      EventLoopGroup loop,
      ExecutorService scrapes,
      InetSocketAddress listen)
      throws IOException {
    this.registry = registry;
    this.gc = gc;
    this.loop = loop;
    this.scrapes = scrapes;
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loop)
            .channel(TRANSPORT.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 128)
            .handler(new AcceptFailures("metrics"))
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    admit(ch);
                  }
                });
    try {
      this.server = Binding.bind(b, listen, "metrics");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding " + HostPort.of(listen), e);
    }
  }

  /**
   * Opens the endpoint on {@code listen} with a new registry holding the JVM's meters and {@code
   * component} as the tag {@code component} on every meter.
   *
   * @throws IOException "cannot listen on ADDRESS:PORT for metrics: ..." when it cannot bind
   */
  public static MetricsEndpoint start(InetSocketAddress listen, String component)
      throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("component", component);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    EventLoopGroup loop = TRANSPORT.group(1);
    // Scrapes, one at a time, off the event loop; at most 16 wait, beyond that 503.
    ExecutorService scrapes =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(16),
            r -> {
              Thread t = new Thread(r, "portcullis-metrics-scrape");
              t.setDaemon(true);
              return t;
            });
    MetricsEndpoint m;
    try {
      m = new MetricsEndpoint(registry, gc, loop, scrapes, listen);
    } catch (IOException e) {
      loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      scrapes.shutdownNow();
      gc.close();
      registry.close();
      throw e;
    }
    log.info("metrics on http://{}/metrics (and /health, /ready)", HostPort.of(m.address()));
    return m;
  }

  /** Where meters go. */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Adds a readiness check, named in a 503's body when it fails. Checks run on the endpoint's event
   * loop at each {@code /ready}: they must answer at once (read a flag, never wait on I/O).
   */
  public void readiness(String name, Check check) {
    checks.add(new Named(name, check));
  }

  /** Runs before each scrape (to refresh meters that mirror state, a provider table say). */
  public void beforeScrape(Runnable r) {
    beforeScrape.add(r);
  }

  /** The bound address (the port, when the config said 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /** Connections refused or cut: over the connection limit, too slow, malformed, too long. */
  public long refused() {
    return refused.sum();
  }

  private void admit(SocketChannel ch) {
    if (open.incrementAndGet() > MAX_CONNECTIONS) {
      open.decrementAndGet();
      refused.increment();
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    children.add(ch);
    ch.pipeline().addLast(new HttpServerCodec(4096, 8192, 8192)).addLast(new Exchange());
  }

  /**
   * One request, one answer, then close: the deadline runs from the connection's opening to the
   * request's head, and again from the answer to its last byte taken by the socket.
   */
  private final class Exchange extends ChannelInboundHandlerAdapter {
    private ScheduledFuture<?> deadline;
    private boolean answered;

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
                    refused.increment(); // too slow to send its request, or to take its answer
                    ctx.close();
                  },
                  MAX_EXCHANGE_SECONDS,
                  TimeUnit.SECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (answered || !(msg instanceof HttpRequest r)) {
          return; // a body, or anything after the one request: not read into anything
        }
        answered = true;
        ctx.channel().config().setAutoRead(false); // nothing more is read from this connection
        if (!r.decoderResult().isSuccess()) {
          refused.increment();
          boolean tooLong = r.decoderResult().cause() instanceof TooLongFrameException;
          send(ctx, r, tooLong ? 431 : 400, tooLong ? "request too long\n" : "bad request\n");
          return;
        }
        route(ctx, r);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void route(ChannelHandlerContext ctx, HttpRequest r) {
      String path = new QueryStringDecoder(r.uri()).path();
      boolean known = path.equals("/metrics") || path.equals("/health") || path.equals("/ready");
      if (!known) {
        send(ctx, r, 404, "not found\n");
        return;
      }
      HttpMethod m = r.method();
      if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
        send(ctx, r, 405, "method not allowed\n");
        return;
      }
      switch (path) {
        case "/health" -> send(ctx, r, 200, "ok\n");
        case "/ready" -> ready(ctx, r);
        default -> scrape(ctx, r);
      }
    }

    private void ready(ChannelHandlerContext ctx, HttpRequest r) {
      List<String> failing = new ArrayList<>();
      for (Named n : checks) {
        String why;
        try {
          why = n.check().get();
        } catch (RuntimeException e) {
          why = e.toString();
        }
        if (why != null) {
          failing.add(n.name() + ": " + why);
        }
      }
      send(
          ctx,
          r,
          failing.isEmpty() ? 200 : 503,
          failing.isEmpty() ? "ready\n" : String.join("\n", failing) + "\n");
    }

    private void scrape(ChannelHandlerContext ctx, HttpRequest r) {
      try {
        scrapes.execute(
            () -> {
              for (Runnable b : beforeScrape) {
                try {
                  b.run();
                } catch (RuntimeException e) {
                  log.warn("metrics: refreshing before a scrape failed: {}", e.toString());
                }
              }
              String text = registry.scrape();
              ctx.executor().execute(() -> send(ctx, r, 200, PROMETHEUS, text));
            });
      } catch (RejectedExecutionException e) {
        send(ctx, r, 503, "busy: scrapes queued\n");
      }
    }

    private void send(ChannelHandlerContext ctx, HttpRequest r, int status, String body) {
      send(ctx, r, status, "text/plain; charset=utf-8", body);
    }

    private void send(
        ChannelHandlerContext ctx, HttpRequest r, int status, String type, String body) {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
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
      if (status == 405) {
        res.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      }
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

  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    children.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    scrapes.shutdownNow();
    loop.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    gc.close();
    registry.close();
    stoppedNow();
  }
}
