package dev.portcullis.pdp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser (Debian's chromium, headless, driven over the DevTools
 * protocol): it shows the PEP connected, the decision it holds and the MLS session, live; an
 * operator who may revoke revokes alice from its form, and the PDP does it, with the operator's
 * name; a subject's name with markup in it is shown as text; a viewer sees no revoke form. A
 * screenshot is left in {@code target/status-page.png}.
 *
 * <p>A browser holding a client certificate needs a certificate store and a policy that picks the
 * certificate, which a test cannot set up without touching the machine: the browser reaches the
 * endpoint through a relay on 127.0.0.1 that presents the operator's certificate (as the browser
 * would) and sends the endpoint's own Origin for the page's requests (as a page the endpoint served
 * does). What the certificate and the Origin decide is {@code ControlApiTest}'s.
 */
@Timeout(120)
class StatusPageBrowserTest {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private DevCertificates.Pki pki;
  private PdpServer pdp;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    assumeTrue(Files.isExecutable(CHROMIUM), "Debian's chromium is not installed here");
    pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("ops-1", "viewer"));
    pdp =
        ControlApiTest.withOperators(
            dir,
            pki,
            "<operator name=\"ops-1\" may=\"view revoke\"/><operator name=\"viewer\" may=\"view\"/>");
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    if (pdp != null) {
      pdp.close();
    }
  }

  @Test
  void anOperatorSeesWhoHoldsWhatAndRevokesFromThePage() throws Exception {
    try (BlockingPep rules = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1");
        BlockingPep mls = new BlockingPep(pdp.address(), 0xC0A6, "desk-7")) {
      assertTrue(rules.ask("h-alice", AccessRequest.of(AccessOperation.ACCESS, "alice")));
      assertTrue(mls.ask("login", AccessRequest.login("alice", 2, List.of("NATO"))));
      Browser page = browser(relay("ops-1") + "/control/");
      page.until("document.querySelector('#peps tbody').textContent", "gw-1");
      page.until("document.querySelector('#peps tbody').textContent", "desk-7");
      page.until("document.querySelector('#sessions tbody').textContent", "SECRET");
      page.until("document.getElementById('summary').textContent", "operator ops-1");
      assertEquals("false", page.eval("String(document.getElementById('revoking').hidden)"));

      page.eval(
          "(() => { const f = document.getElementById('revoke');"
              + " f.elements.subject.value = 'alice'; f.elements.reason.value = 'incident 42';"
              + " f.querySelector('button').click(); return 'clicked'; })()");
      await().atMost(Duration.ofSeconds(10)).until(() -> !pdp.revokedSubjects().isEmpty());
      assertEquals("ops-1", pdp.revokedSubjects().get(0).by());
      assertEquals("incident 42", pdp.revokedSubjects().get(0).reason());
      assertNotNull(rules.pushed(5_000), "the PEP holding alice's decision heard its Remove");
      page.until("document.querySelector('#revoked tbody').textContent", "incident 42");

      // a subject's name is shown as text, never read as markup
      pdp.revokeSubject("<img src=x onerror=\"document.title='owned'\">", "ops-1", "<b>x</b>");
      page.until("document.querySelector('#revoked tbody').textContent", "<img src=x");
      assertEquals(
          "0", page.eval("String(document.querySelectorAll('#revoked img, #revoked b').length)"));
      assertFalse(page.eval("document.title").contains("owned"));

      assertEquals(List.of(), page.errors(), "the page works under its own policy");
      Path shot = Path.of("target", "status-page.png").toAbsolutePath();
      Files.write(shot, page.screenshot());
      byte[] b = Files.readAllBytes(shot);
      assertTrue(b.length > 10_000 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G', "a PNG");
      System.out.println("status page screenshot: " + shot);
    }
  }

  @Test
  void aViewerSeesNoRevokeForm() throws Exception {
    Browser page = browser(relay("viewer") + "/control/");
    page.until("document.getElementById('summary').textContent", "operator viewer (may view)");
    assertEquals("true", page.eval("String(document.getElementById('revoking').hidden)"));
    page.until("document.querySelector('#peps tbody').textContent", "no PEP is connected");
    assertEquals(
        "14px", page.eval("getComputedStyle(document.body).fontSize"), "its style is applied");
    assertEquals(List.of(), page.errors(), "the page works under its own policy");
  }

  // ---- the relay: the operator's certificate, presented for the browser -----------------------

  /** A plain-HTTP relay on 127.0.0.1 to the control interface, as operator {@code who}. */
  String relay(String who) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(DevCertificates.clientContext(pki, who))
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String endpoint = "https://localhost:" + pdp.metricsAddress().getPort();
    HttpServer relay = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    relay.createContext("/", ex -> forward(ex, client, endpoint));
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(
            4, dev.portcullis.support.Threads.daemon("relay")); // the browser asks in parallel
    relay.setExecutor(threads);
    relay.start();
    open.add(threads::shutdownNow);
    open.add(() -> relay.stop(0));
    return "http://127.0.0.1:" + relay.getAddress().getPort();
  }

  static void forward(HttpExchange ex, HttpClient client, String endpoint) throws IOException {
    try (ex) {
      HttpRequest.Builder r =
          HttpRequest.newBuilder(URI.create(endpoint + ex.getRequestURI()))
              .timeout(Duration.ofSeconds(10))
              .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.noBody());
      if (ex.getRequestHeaders().containsKey("Origin")) {
        r.header("Origin", endpoint); // the page came from the endpoint itself
      }
      HttpResponse<byte[]> a = client.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());

      for (Map.Entry<String, List<String>> h : a.headers().map().entrySet()) {
        if (!Set.of("content-length", "connection", "transfer-encoding", ":status")
            .contains(h.getKey().toLowerCase(java.util.Locale.ROOT))) {
          ex.getResponseHeaders().put(h.getKey(), h.getValue());
        }
      }
      ex.sendResponseHeaders(a.statusCode(), a.body().length == 0 ? -1 : a.body().length);
      ex.getResponseBody().write(a.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the browser, over the DevTools protocol --------------------------------------------------

  Browser browser(String url) throws Exception {
    Path profile = Files.createTempDirectory(dir, "chromium");
    Process p =
        new ProcessBuilder(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                "--user-data-dir=" + profile,
                "--window-size=1100,1300",
                url)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile())
            .start();
    open.add(
        () -> {
          p.destroy();
          if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        });
    Path port = profile.resolve("DevToolsActivePort");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.isRegularFile(port) && Files.size(port) > 0);
    String devtools = "http://127.0.0.1:" + Files.readAllLines(port).get(0).strip();
    HttpClient http = HttpClient.newHttpClient();
    String[] ws = {null};
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              JsonNode targets =
                  JSON.readTree(
                      http.send(
                              HttpRequest.newBuilder(URI.create(devtools + "/json/list")).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .body());
              for (JsonNode t : targets) {
                if (t.path("type").asText().equals("page")) {
                  ws[0] = t.path("webSocketDebuggerUrl").asText();
                }
              }
              return ws[0] != null;
            });
    Browser b = new Browser(http, URI.create(ws[0]));
    open.add(b);
    // from the start again, with the console heard: a script error or a policy violation is a fault
    b.call("Log.enable", JSON.createObjectNode());
    b.call("Runtime.enable", JSON.createObjectNode());
    b.call("Page.reload", JSON.createObjectNode());
    return b;
  }

  /** One page of the browser: evaluates script in it, takes its screenshot. */
  static final class Browser implements WebSocket.Listener, AutoCloseable {
    private final Map<Integer, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final StringBuilder text = new StringBuilder();
    final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final WebSocket socket;

    Browser(HttpClient http, URI ws) throws Exception {
      socket = http.newWebSocketBuilder().buildAsync(ws, this).get(10, TimeUnit.SECONDS);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        try {
          JsonNode n = JSON.readTree(text.toString());
          CompletableFuture<JsonNode> f = n.has("id") ? waiting.remove(n.get("id").asInt()) : null;
          if (f != null) {
            f.complete(n);
          } else {
            events.add(n.toString());
          }
        } catch (IOException e) {
          // not ours to read: an event we did not ask for
        }
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }

    JsonNode call(String method, ObjectNode params) throws Exception {
      int id = ids.incrementAndGet();
      CompletableFuture<JsonNode> f = new CompletableFuture<>();
      waiting.put(id, f);
      ObjectNode m = JSON.createObjectNode().put("id", id).put("method", method);
      m.set("params", params);
      socket.sendText(m.toString(), true).get(10, TimeUnit.SECONDS);
      JsonNode answer = f.get(30, TimeUnit.SECONDS);
      if (answer.has("error")) {
        throw new AssertionError(method + ": " + answer.get("error"));
      }
      return answer.get("result");
    }

    /** The value of {@code expression} in the page, as a string. */
    String eval(String expression) throws Exception {
      JsonNode r =
          call(
              "Runtime.evaluate",
              JSON.createObjectNode()
                  .put("expression", expression)
                  .put("returnByValue", true)
                  .put("awaitPromise", true));
      if (r.has("exceptionDetails")) {
        throw new AssertionError(expression + ": " + r.get("exceptionDetails"));
      }
      return r.path("result").path("value").asText();
    }

    /** Waits (at most 20 s) until {@code expression} shows {@code wanted}. */
    void until(String expression, String wanted) {
      String[] last = {""};
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions() // the page still loading: its elements not there yet
          .alias(expression + " shows " + wanted + " (last: " + last[0] + ")")
          .until(
              () -> {
                last[0] = eval(expression);
                return last[0].contains(wanted);
              });
    }

    /** What the page's console said at level error: blocked loads, script exceptions. */
    List<String> errors() {
      return events.stream()
          .filter(
              e ->
                  (e.contains("\"Log.entryAdded\"") && e.contains("\"level\":\"error\""))
                      || e.contains("\"Runtime.exceptionThrown\""))
          .toList();
    }

    byte[] screenshot() throws Exception {
      JsonNode r =
          call(
              "Page.captureScreenshot",
              JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true));
      return Base64.getDecoder().decode(r.get("data").asText());
    }

    @Override
    public void close() {
      socket.abort();
    }
  }
}
