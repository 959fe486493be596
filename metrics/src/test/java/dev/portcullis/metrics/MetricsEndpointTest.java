package dev.portcullis.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MetricsEndpointTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static HttpResponse<String> get(MetricsEndpoint m, String path, String method)
      throws Exception {
    URI u = URI.create("http://127.0.0.1:" + m.address().getPort() + path);
    return HTTP.send(
        HttpRequest.newBuilder(u)
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static InetSocketAddress loopback(int port) {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
  }

  @Test
  void servesMetricsHealthAndReadiness() throws Exception {
    AtomicReference<String> notReady = new AtomicReference<>("policies not loaded");
    try (MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test")) {
      Counter.builder("portcullis.test.things").register(m.registry()).increment(3);
      m.readiness("policies", notReady::get);

      HttpResponse<String> r = get(m, "/metrics", "GET");
      assertEquals(200, r.statusCode());
      assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
      assertTrue(
          r.body().contains("portcullis_test_things_total{component=\"test\"} 3.0"), r.body());
      assertTrue(r.body().contains("jvm_memory_used_bytes"), "the JVM's meters too");

      assertEquals(200, get(m, "/health", "GET").statusCode());
      HttpResponse<String> ready = get(m, "/ready", "GET");
      assertEquals(503, ready.statusCode());
      assertEquals("policies: policies not loaded\n", ready.body());
      notReady.set(null);
      assertEquals(200, get(m, "/ready", "GET").statusCode());

      assertEquals(405, get(m, "/metrics", "POST").statusCode());
      assertEquals(404, get(m, "/nothing", "GET").statusCode());
    }
  }

  /**
   * Clients that send half a request and wait hold the endpoint's threads only until the exchange
   * time limit: a scrape after them is answered (without the limit it waited forever).
   */
  @Test
  void slowClientsCannotKeepAScrapeOut() throws Exception {
    try (MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test")) {
      java.util.List<java.net.Socket> slow = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          java.net.Socket s =
              new java.net.Socket(InetAddress.getLoopbackAddress(), m.address().getPort());
          s.getOutputStream()
              .write(
                  "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                      .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          slow.add(s);
        }
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + m.address().getPort() + "/health"))
                    .timeout(Duration.ofSeconds(MetricsEndpoint.MAX_EXCHANGE_SECONDS * 4L))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
      } finally {
        for (java.net.Socket s : slow) {
          s.close();
        }
      }
    }
  }

  @Test
  void aPortInUseIsNamed() throws Exception {
    try (MetricsEndpoint first = MetricsEndpoint.start(loopback(0), "a")) {
      int port = first.address().getPort();
      IOException e =
          assertThrows(IOException.class, () -> MetricsEndpoint.start(loopback(port), "b"));
      assertTrue(
          e.getMessage().startsWith("cannot listen on 127.0.0.1:" + port + " for metrics"),
          e.getMessage());
    }
  }

  /** The status line a raw request gets. */
  private static String statusLine(MetricsEndpoint m, String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), m.address().getPort())) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      return new BufferedReader(
              new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
          .readLine();
    }
  }

  /**
   * Exactly three paths and two methods. {@code /health} used to answer 200 to POST, TRACE, CONNECT
   * and a lowercase {@code get}, and {@code /readyz} and {@code /metricsXYZ} matched by prefix.
   */
  @Test
  void exactPathsAndExactMethods() throws Exception {
    try (MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test")) {
      for (String method : List.of("POST", "TRACE", "PUT", "DELETE", "OPTIONS", "get")) {
        assertEquals(
            "HTTP/1.1 405 Method Not Allowed",
            statusLine(m, method + " /health HTTP/1.1\r\nHost: x\r\n\r\n"),
            method);
      }
      assertEquals(
          "HTTP/1.1 405 Method Not Allowed",
          statusLine(m, "CONNECT /health HTTP/1.1\r\nHost: x\r\n\r\n"));
      for (String path : List.of("/readyz", "/metricsXYZ", "/health/", "/healthz", "/")) {
        assertEquals(404, get(m, path, "GET").statusCode(), path);
      }
      assertEquals(200, get(m, "/health", "HEAD").statusCode());
      assertEquals(200, get(m, "/ready?verbose", "GET").statusCode(), "a query is not a path");
    }
  }

  /**
   * Liveness and readiness answer within their probe time while slow clients hold connections: 20
   * new slow connections a second (each sends half a request and waits) and a scraper that never
   * reads its answer. With the JDK's server, /ready took ~4.5 s under that load.
   */
  @Test
  void probesAreAnsweredAtOnceWhileSlowClientsWait() throws Exception {
    try (MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test")) {
      m.readiness("slow scrapes", () -> null);
      List<Socket> slow = new ArrayList<>();
      try {
        for (int second = 0; second < 3; second++) {
          for (int i = 0; i < 20; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), m.address().getPort());
            s.getOutputStream()
                .write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            slow.add(s);
          }
          Socket scraper = new Socket(InetAddress.getLoopbackAddress(), m.address().getPort());
          scraper.setReceiveBufferSize(1024); // takes its answer slowly: never reads it
          scraper
              .getOutputStream()
              .write(
                  "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          slow.add(scraper);
          for (String probe : List.of("/health", "/ready")) {
            long t0 = System.nanoTime();
            assertEquals(200, get(m, probe, "GET").statusCode());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(
                ms < 2_000, probe + " answered in " + ms + " ms with " + slow.size() + " slow");
          }
        }
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
    }
  }

  @Test
  @Timeout(120)
  void oneAddressFloodingWithIdleConnectionsStarvesNobody() throws Exception {
    // 10,000 where the process may open that many sockets (two descriptors each, here and there)
    long room =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean u
            ? (u.getMaxFileDescriptorCount() - u.getOpenFileDescriptorCount() - 500) / 2
            : 1_000;
    int flood = (int) Math.min(10_000, room);
    assertTrue(flood > MetricsEndpoint.MAX_CONNECTIONS, "room for a flood: " + room);
    InetAddress attacker = InetAddress.getByName("127.0.0.2");
    try (MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test")) {
      m.readiness("nothing", () -> null);
      m.route(
          new HttpRoute() {
            @Override
            public String prefix() {
              return "/gates";
            }

            @Override
            public java.util.Set<String> methods() {
              return java.util.Set.of("GET");
            }

            @Override
            public java.util.concurrent.CompletableFuture<Reply> handle(Request r) {
              return java.util.concurrent.CompletableFuture.completedFuture(Reply.json(200, "[]"));
            }
          });
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < flood; i++) {
          Socket s = new Socket();
          s.bind(new InetSocketAddress(attacker, 0));
          s.connect(m.address(), 5_000);
          idle.add(s);
        }
        long slowest = 0;
        for (int i = 0; i < 48; i++) {
          long t0 = System.nanoTime();
          assertEquals(200, raw(m, InetAddress.getLoopbackAddress(), "/ready"));
          slowest = Math.max(slowest, System.nanoTime() - t0);
          assertEquals(200, raw(m, InetAddress.getLoopbackAddress(), "/gates"), "request " + i);
        }
        // the flooding address's own probe gets in too: its oldest idle connection makes room
        assertEquals(200, raw(m, attacker, "/ready"));
        assertTrue(
            slowest < 1_000_000_000L,
            "/ready within "
                + slowest / 1_000_000
                + " ms with "
                + flood
                + " idle from one address");
        assertTrue(
            m.refused() >= flood - MetricsEndpoint.MAX_PER_ADDRESS,
            "each idle connection past its address's share was closed: " + m.refused());
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  /** A GET of {@code path} from {@code from} on a socket of its own: the status. */
  private static int raw(MetricsEndpoint m, InetAddress from, String path) throws IOException {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(from, 0));
      s.connect(m.address(), 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String status =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      return Integer.parseInt(status.split(" ")[1]);
    }
  }

  /**
   * A scrape still running when the endpoint closes ends quietly: its answer finds the loop stopped
   * and nobody to answer. On JDK 25 the scrape thread died there with a RejectedExecutionException
   * and an 11-line trace in a green build's output.
   */
  @Test
  void aScrapeUnderWayWhenTheEndpointClosesEndsQuietly() throws Exception {
    List<Throwable> died = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> died.add(e));
    CountDownLatch scraping = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    AtomicReference<Thread> scraper = new AtomicReference<>();
    try {
      MetricsEndpoint m = MetricsEndpoint.start(loopback(0), "test");
      m.beforeScrape(
          () -> {
            scraper.set(Thread.currentThread());
            scraping.countDown();
            for (int i = 0; i < 2; i++) { // close() interrupts the wait once
              try {
                closed.await(10, TimeUnit.SECONDS);
                return;
              } catch (InterruptedException e) {
                // close() began: the scrape goes on once it has returned
              }
            }
          });
      HTTP.sendAsync(
          HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + m.address().getPort() + "/metrics"))
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      assertTrue(scraping.await(10, TimeUnit.SECONDS), "the scrape started");
      m.close();
      closed.countDown(); // the scrape finishes now, its loop stopped
      scraper.get().join(10_000);
      assertTrue(!scraper.get().isAlive(), "the scrape thread ended");
      assertEquals(List.of(), died, "nothing died on the scrape thread");
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
  }
}
