package dev.portcullis.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
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
}
