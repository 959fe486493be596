package dev.portcullis.metrics;

import dev.portcullis.support.AcceptFailures;
import dev.portcullis.support.Binding;
import dev.portcullis.support.ConnectionSlots;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Transport;
import io.micrometer.core.instrument.FunctionCounter;
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
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
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
 * exactly {@code GET} and {@code HEAD} (405 for any other method, lowercase {@code get} included),
 * and the APIs a component adds ({@link #route}: the PCMM policy server's gates), each under its
 * own path with its own methods, its request body read whole (at most {@value HttpRoute#MAX_BODY}
 * bytes) before it is handed over.
 *
 * <p>Health probes are never starved by slow clients or scrapes. One Netty event loop reads every
 * connection without blocking, so a client that sends its request slowly holds no thread, only a
 * connection slot; {@code /health} and {@code /ready} are answered on that loop the moment their
 * request line and headers are in (nothing of a body is waited for), and a scrape runs on a thread
 * of its own. Each connection must send its request within {@value #MAX_EXCHANGE_SECONDS} s and
 * take its answer within as long again, then it is closed (one request per connection); at most
 * {@value #MAX_CONNECTIONS} are open and {@value #MAX_PER_ADDRESS} from one address, the oldest
 * idle connection (its request not yet in) closed to make room for a new one ({@link
 * ConnectionSlots}: one address cannot starve the probes or the gates API), request lines and
 * headers at most 8 KiB. (The JDK's HTTP server this replaces read requests on its two executor
 * threads: 20 slow connections a second kept {@code /ready} waiting ~4.5 s.) Refusals are counted
 * ({@link #refused}).
 */
public final class MetricsEndpoint extends Lifecycle.Bound {

  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  /** Longest a request may take to arrive, and its answer to be taken. */
  static final int MAX_EXCHANGE_SECONDS = 5;

  /** Connections open at once; beyond, the oldest idle one makes room, or the new one is closed. */
  static final int MAX_CONNECTIONS = 512;

  /**
   * Connections from one address at once: 10,000 idle connections from one address took every slot,
   * and {@code /ready} was answered by a reset.
   */
  static final int MAX_PER_ADDRESS = 64;

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
  private final SslContext tls;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ConnectionSlots slots = new ConnectionSlots(MAX_CONNECTIONS, MAX_PER_ADDRESS);
  final LongAdder refused = new LongAdder();
  private final List<Named> checks = new CopyOnWriteArrayList<>();
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();
  final List<HttpRoute> routes = new CopyOnWriteArrayList<>();

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      JvmGcMetrics gc,
      EventLoopGroup loop,
      ExecutorService scrapes,
      InetSocketAddress listen,
      SslContext tls,
      Clock clock)
      throws IOException {
    this.registry = registry;
    this.tls = tls;
    this.gc = gc;
    this.loop = loop;
    this.scrapes = scrapes;
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loop)
            .channel(TRANSPORT.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 128)
            .handler(new AcceptFailures("metrics", clock))
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
    return start(listen, component, null);
  }

  /**
   * As {@link #start(InetSocketAddress, String)}, over HTTPS with {@code tls} (null: plain HTTP). A
   * client certificate it verifies names the client to the routes ({@link
   * HttpRoute.Request#clientNames}); the endpoint's own paths never need one.
   */
  public static MetricsEndpoint start(InetSocketAddress listen, String component, SslContext tls)
      throws IOException {
    return start(listen, component, tls, Clock.systemUTC());
  }

  /**
   * The endpoint's HTTPS (TLS 1.3 and 1.2): {@code certificate} and {@code key} (PEM), and client
   * certificates from {@code clientCa} asked for, not required (probes and scrapes come without;
   * the routes that need one check {@link HttpRoute.Request#clientNames}); null {@code clientCa}:
   * none asked for. {@code where} names the configuration element in the error.
   *
   * @throws IOException naming the files when they cannot be used together
   */
  public static SslContext https(
      java.nio.file.Path certificate,
      java.nio.file.Path key,
      java.nio.file.Path clientCa,
      String where)
      throws IOException {
    try {
      io.netty.handler.ssl.SslContextBuilder b =
          io.netty.handler.ssl.SslContextBuilder.forServer(certificate.toFile(), key.toFile())
              .protocols("TLSv1.3", "TLSv1.2");
      if (clientCa != null) {
        b.trustManager(clientCa.toFile()).clientAuth(io.netty.handler.ssl.ClientAuth.OPTIONAL);
      }
      return b.build();
    } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
      throw new IOException(
          where
              + ": cannot use "
              + certificate
              + " with "
              + key
              + (clientCa == null ? "" : " and " + clientCa)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * As {@link #start(InetSocketAddress, String, SslContext)}, its summaries paced by {@code clock}.
   */
  public static MetricsEndpoint start(
      InetSocketAddress listen, String component, SslContext tls, Clock clock) throws IOException {
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
            Threads.daemon("portcullis-metrics-scrape"));
    MetricsEndpoint m;
    try {
      m = new MetricsEndpoint(registry, gc, loop, scrapes, listen, tls, clock);
    } catch (IOException e) {
      loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      scrapes.shutdownNow();
      gc.close();
      registry.close();
      throw e;
    }
    log.info(
        "metrics on {}://{}/metrics (and /health, /ready)",
        tls == null ? "http" : "https",
        HostPort.of(m.address()));
    return m;
  }

  /** Where meters go. */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Registers a counter read from {@code value} at each scrape (Prometheus: {@code NAME_total}),
   * with one tag or none ({@code tag} null).
   */
  public void counter(String name, AtomicLong value, String tag, String tagValue) {
    FunctionCounter.Builder<AtomicLong> b = FunctionCounter.builder(name, value, AtomicLong::get);
    if (tag != null) {
      b.tag(tag, tagValue);
    }
    b.register(registry);
  }

  /**
   * Adds a readiness check, named in a 503's body when it fails. Checks run on the endpoint's event
   * loop at each {@code /ready}: they must answer at once (read a flag, never wait on I/O).
   */
  public void readiness(String name, Check check) {
    checks.add(new Named(name, check));
  }

  /**
   * Serves {@code route} beside the endpoint's own paths, which it may not shadow. Routes added
   * after start serve from the next request on.
   */
  public void route(HttpRoute route) {
    String p = route.prefix();
    if (!p.startsWith("/")
        || p.endsWith("/")
        || List.of("/metrics", "/health", "/ready").contains(p)) {
      throw new IllegalArgumentException(
          "route prefix " + p + " (expected: /name, not /metrics, /health or /ready)");
    }
    routes.add(route);
  }

  /** Runs before each scrape (to refresh meters that mirror state, a provider table say). */
  public void beforeScrape(Runnable r) {
    beforeScrape.add(r);
  }

  /** The bound address (the port, when the config said 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /**
   * Connections refused or cut: over the connection limits (or closed to make room, idle), too
   * slow, malformed, too long.
   */
  public long refused() {
    return refused.sum() + slots.evicted.sum();
  }

  private void admit(SocketChannel ch) {
    if (!slots.admit(ch)) {
      refused.increment();
      return;
    }
    children.add(ch);
    if (tls != null) {
      // the handshake counts against the exchange's deadline, as a slow request would
      ch.pipeline().addLast(tls.newHandler(ch.alloc()));
    }
    ch.pipeline()
        .addLast(new HttpServerCodec(4096, 8192, 8192))
        .addLast(new HttpServerExpectContinueHandler()) // curl waits for it before a body
        .addLast(new Exchange(this));
  }

  /** The failing readiness checks, each "name: why"; empty when ready. */
  List<String> failingChecks() {
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
    return failing;
  }

  /**
   * Scrapes on the scrape thread, one at a time, and gives the text to {@code done}.
   *
   * @throws RejectedExecutionException when 16 scrapes wait already
   */
  void scrape(Consumer<byte[]> done) {
    scrapes.execute(
        () -> {
          for (Runnable b : beforeScrape) {
            try {
              b.run();
            } catch (RuntimeException e) {
              log.warn("metrics: refreshing before a scrape failed: {}", e.toString());
            }
          }
          done.accept(registry.scrape().getBytes(StandardCharsets.UTF_8));
        });
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    children.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    // A scrape under way hands its answer to the loop: the loop stops after it, not before (it
    // used to stop first, and the scrape thread died on the stopped loop with a trace in the log).
    // Queued scrapes are dropped and a refresh waiting is interrupted; one stuck past 2 s finds the
    // loop stopped and answers nobody (Exchange#scrape).
    scrapes.shutdownNow();
    try {
      scrapes.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    loop.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    gc.close();
    registry.close();
    stoppedNow();
  }
}
