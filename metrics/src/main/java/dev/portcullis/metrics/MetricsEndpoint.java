package dev.portcullis.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.portcullis.support.HostPort;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * Two daemon threads answer, so a scrape never competes with the component's event loops for more
 * than that; a client that sends its request or reads the answer slowly is cut after {@value
 * #MAX_EXCHANGE_SECONDS} seconds (the JDK server's {@code sun.net.httpserver.maxReqTime} and {@code
 * maxRspTime}, set here unless the operator set them), so a few slow connections cannot keep a
 * scrape out for good.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  /** Longest a request may take to arrive, and its answer to be taken. */
  static final int MAX_EXCHANGE_SECONDS = 5;

  static {
    // Read once by the JDK's server when its classes load: set before the first HttpServer.
    for (String p :
        new String[] {"sun.net.httpserver.maxReqTime", "sun.net.httpserver.maxRspTime"}) {
      if (System.getProperty(p) == null) {
        System.setProperty(p, Integer.toString(MAX_EXCHANGE_SECONDS));
      }
    }
  }

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
  private final HttpServer http;
  private final ExecutorService executor;
  private final List<Named> checks = new CopyOnWriteArrayList<>();
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      JvmGcMetrics gc,
      HttpServer http,
      ExecutorService executor) {
    this.registry = registry;
    this.gc = gc;
    this.http = http;
    this.executor = executor;
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
    HttpServer http;
    try {
      http = HttpServer.create(listen, 16);
    } catch (IOException e) {
      gc.close();
      registry.close();
      BindException b =
          new BindException(
              "cannot listen on " + HostPort.of(listen) + " for metrics: " + e.getMessage());
      b.initCause(e);
      throw b;
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "portcullis-metrics");
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(executor);
    MetricsEndpoint m = new MetricsEndpoint(registry, gc, http, executor);
    http.createContext("/metrics", m::metrics);
    http.createContext("/health", x -> m.answer(x, 200, "ok\n"));
    http.createContext("/ready", m::ready);
    http.start();
    log.info("metrics on http://{}/metrics (and /health, /ready)", HostPort.of(m.address()));
    return m;
  }

  /** Where meters go. */
  public MeterRegistry registry() {
    return registry;
  }

  /** Adds a readiness check, named in a 503's body when it fails. */
  public void readiness(String name, Check check) {
    checks.add(new Named(name, check));
  }

  /** Runs before each scrape (to refresh meters that mirror state, a provider table say). */
  public void beforeScrape(Runnable r) {
    beforeScrape.add(r);
  }

  /** The bound address (the port, when the config said 0). */
  public InetSocketAddress address() {
    return http.getAddress();
  }

  private void metrics(HttpExchange x) throws IOException {
    if (!get(x)) {
      return;
    }
    for (Runnable r : beforeScrape) {
      try {
        r.run();
      } catch (RuntimeException e) {
        log.warn("metrics: refreshing before a scrape failed: {}", e.toString());
      }
    }
    x.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    answer(x, 200, registry.scrape());
  }

  private void ready(HttpExchange x) throws IOException {
    if (!get(x)) {
      return;
    }
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
    answer(
        x,
        failing.isEmpty() ? 200 : 503,
        failing.isEmpty() ? "ready\n" : String.join("\n", failing) + "\n");
  }

  private boolean get(HttpExchange x) throws IOException {
    String m = x.getRequestMethod();
    if (m.equals("GET") || m.equals("HEAD")) {
      return true;
    }
    x.getResponseHeaders().set("Allow", "GET, HEAD");
    answer(x, 405, "method not allowed\n");
    return false;
  }

  private void answer(HttpExchange x, int status, String body) throws IOException {
    try (x) {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      if (!x.getResponseHeaders().containsKey("Content-Type")) {
        x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      }
      boolean head = x.getRequestMethod().equals("HEAD");
      x.sendResponseHeaders(status, head ? -1 : b.length);
      if (!head) {
        try (OutputStream out = x.getResponseBody()) {
          out.write(b);
        }
      }
    }
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
    gc.close();
    registry.close();
  }
}
