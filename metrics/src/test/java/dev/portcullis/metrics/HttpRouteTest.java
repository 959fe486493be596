package dev.portcullis.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An API served beside the metrics gets the endpoint's limits, and its requests whole. */
@Timeout(30)
class HttpRouteTest {
  private final AtomicReference<HttpRoute.Request> seen = new AtomicReference<>();

  private HttpRoute echo(CompletableFuture<HttpRoute.Reply> answer) {
    return new HttpRoute() {
      @Override
      public String prefix() {
        return "/things";
      }

      @Override
      public Set<String> methods() {
        return Set.of("GET", "POST");
      }

      @Override
      public CompletableFuture<Reply> handle(Request r) {
        seen.set(r);
        return answer != null
            ? answer
            : CompletableFuture.completedFuture(
                Reply.json(201, "{\"got\":" + r.body().length + "}").with("x-seen", "yes"));
      }
    };
  }

  private static MetricsEndpoint start() throws IOException {
    return MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "t");
  }

  /** Sends raw bytes, returns everything the endpoint answers before it closes. */
  private static String exchange(MetricsEndpoint m, String... parts) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), m.address().getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      for (String p : parts) {
        out.write(p.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      }
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      try {
        in.transferTo(all);
      } catch (SocketException e) {
        // reset: closed with bytes of ours unread (a body cut short); what came before stands
      }
      return all.toString(StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void aBodySentInPiecesArrivesWhole() throws Exception {
    try (MetricsEndpoint m = start()) {
      m.route(echo(null));
      String body = "{\"a\":\"" + "x".repeat(3000) + "\"}";
      int half = body.length() / 2;
      String r =
          exchange(
              m,
              "POST /things/7?x=1 HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer t0k\r\n"
                  + "Content-Type: application/json\r\nContent-Length: "
                  + body.length()
                  + "\r\n\r\n"
                  + body.substring(0, half),
              body.substring(half));
      assertTrue(r.startsWith("HTTP/1.1 201 "), r);
      assertTrue(r.contains("\r\nx-seen: yes\r\n"), r);
      assertTrue(r.endsWith("{\"got\":" + body.length() + "}"), r);
      HttpRoute.Request q = seen.get();
      assertEquals("POST", q.method());
      assertEquals("/things/7", q.path());
      assertEquals("1", q.param("x"));
      assertNull(q.param("y"));
      assertEquals("Bearer t0k", q.authorization());
      assertEquals(body, new String(q.body(), StandardCharsets.UTF_8));

      // chunked too, and the endpoint's own paths are untouched
      String chunked =
          exchange(
              m,
              "POST /things HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                  + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
      assertTrue(chunked.endsWith("{\"got\":5}"), chunked);
      assertTrue(exchange(m, "GET /health HTTP/1.1\r\nHost: h\r\n\r\n").endsWith("ok\n"));
    }
  }

  @Test
  void otherMethodsLongBodiesAndNeighbouringPathsAreRefused() throws Exception {
    try (MetricsEndpoint m = start()) {
      m.route(echo(null));
      String delete = exchange(m, "DELETE /things/1 HTTP/1.1\r\nHost: h\r\n\r\n");
      assertTrue(delete.startsWith("HTTP/1.1 405 "), delete);
      assertTrue(delete.contains("allow: "), delete);
      String declared =
          exchange(
              m,
              "POST /things HTTP/1.1\r\nHost: h\r\nContent-Length: "
                  + (HttpRoute.MAX_BODY + 1)
                  + "\r\n\r\n");
      assertTrue(declared.startsWith("HTTP/1.1 413 "), declared);
      // a chunked body that grows past the limit is cut when it does, never held whole
      String big = Integer.toHexString(40_000) + "\r\n" + "y".repeat(40_000) + "\r\n";
      String grown =
          exchange(
              m,
              "POST /things HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
              big,
              big);
      // (the rest of the body unread, the close may be a reset that the 413 did not outrun)
      assertTrue(grown.isEmpty() || grown.startsWith("HTTP/1.1 413 "), grown);
      assertNull(seen.get(), "the route saw none of them");
      assertTrue(
          exchange(m, "GET /thingsX HTTP/1.1\r\nHost: h\r\n\r\n").startsWith("HTTP/1.1 404 "));
      assertTrue(m.refused() >= 2, "counted: " + m.refused());
    }
  }

  @Test
  void aFailingRouteIsA500WithoutDetail() throws Exception {
    try (MetricsEndpoint m = start()) {
      m.route(echo(CompletableFuture.failedFuture(new IllegalStateException("secret detail"))));
      String r = exchange(m, "GET /things HTTP/1.1\r\nHost: h\r\n\r\n");
      assertTrue(r.startsWith("HTTP/1.1 500 "), r);
      assertTrue(!r.contains("secret detail"), r);
    }
  }

  @Test
  void aRouteCannotShadowTheEndpointsPaths() throws Exception {
    try (MetricsEndpoint m = start()) {
      HttpRoute shadow =
          new HttpRoute() {
            @Override
            public String prefix() {
              return "/ready";
            }

            @Override
            public Set<String> methods() {
              return Set.of("GET");
            }

            @Override
            public CompletableFuture<Reply> handle(Request r) {
              return CompletableFuture.completedFuture(Reply.text(200, "shadowed"));
            }
          };
      assertThrows(IllegalArgumentException.class, () -> m.route(shadow));
    }
  }
}
