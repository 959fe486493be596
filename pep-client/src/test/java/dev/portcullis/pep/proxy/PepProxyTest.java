package dev.portcullis.pep.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.Prometheus;
import dev.portcullis.support.Timebase;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy in front of a real upstream (an echo server), deciding each connection at a real PDP
 * over loopback: allowed and denied connections, revocation by a policy reload, DRQ at the end of a
 * connection, failing closed without a PDP, half-close, slow readers, many connections at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PepProxyTest {
  static final String ALLOW =
      "<rules><rule id=\"echo-alice\" decision=\"install\" reason=\"alice may use echo\">"
          + "<match operation=\"ACCESS\" subject=\"alice\" service=\"echo\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule allows this\"/></rules>";

  @TempDir Path dir;
  Echo echo;
  PdpServer pdp;
  PepProxy proxy;
  AuditLog audit;
  InetSocketAddress allowed;
  InetSocketAddress denied;

  /** An upstream that echoes, and half-closes after its client did. */
  static final class Echo implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
    final Thread acceptor;

    Echo() throws IOException {
      acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    Thread t =
                        new Thread(
                            () -> {
                              try (s) {
                                InputStream in = s.getInputStream();
                                OutputStream out = s.getOutputStream();
                                byte[] b = new byte[8192];
                                for (int n; (n = in.read(b)) > 0; ) {
                                  out.write(b, 0, n);
                                }
                                s.shutdownOutput();
                              } catch (IOException e) {
                                // the client went
                              }
                            });
                    t.setDaemon(true);
                    t.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
    }

    InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /**
     * Stops listening for good: the acceptor has left {@code accept}. (A close while another thread
     * waits in {@code accept} returns before that thread lets go of the socket, and a connection
     * arriving in between was still accepted and echoed: seen in a full build.)
     */
    @Override
    public void close() throws IOException {
      server.close();
      try {
        acceptor.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @BeforeEach
  void start() throws Exception {
    echo = new Echo();
    pdp = allowingPdp(dir);
    String up = "127.0.0.1:" + echo.address().getPort();
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\">"
            + "<listener name=\"echo\" listen=\"127.0.0.1:0\" upstream=\""
            + up
            + "\" service=\"echo\"><subject source=\"127.0.0.0/8\" name=\"alice\"/></listener>"
            + "<listener name=\"other\" listen=\"127.0.0.1:0\" upstream=\""
            + up
            + "\" service=\"other\"><subject source=\"127.0.0.0/8\" name=\"alice\"/></listener>"
            + "</pep-proxy>");
    audit = AuditLog.open(dir.resolve("proxy-audit.jsonl"));
    proxy = started(dir, audit, Timebase.SYSTEM);
    allowed = proxy.addresses().get(0);
    denied = proxy.addresses().get(1);
    assertTrue(proxy.pep().isOpen(), "the proxy's PEP is open at its PDP");
  }

  /**
   * The proxy of {@code dir}'s pep-proxy.xml on one event loop, its PEP reconnecting within a
   * second, once that PEP is open at its PDP (at most 10 s).
   */
  static PepProxy started(Path dir, AuditLog audit, Timebase time) throws Exception {
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    PepProxy p =
        new PepProxy(
            cfg,
            PepConfig.load(cfg.pep())
                .clientBuilder()
                .reconnect(Duration.ofMillis(100), Duration.ofSeconds(1)),
            1,
            audit,
            time);
    try {
      p.ready().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      p.close();
      throw e;
    }
    return p;
  }

  /**
   * A PDP in {@code dir} deciding by {@link #ALLOW} (policy.xml, pdp.xml), and the pep.xml of a
   * proxy's PEP that uses it.
   */
  static PdpServer allowingPdp(Path dir) throws Exception {
    return allowingPdp(dir, "");
  }

  /** As {@link #allowingPdp(Path)}, with {@code limits} (a {@code <limits>} element, or ""). */
  static PdpServer allowingPdp(Path dir, String limits) throws Exception {
    Files.writeString(dir.resolve("policy.xml"), ALLOW);
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + limits
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"policy.xml\"/></pdp>");
    PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
    Files.writeString(
        dir.resolve("pep.xml"),
        "<pep id=\"proxy-1\"><pdp address=\"127.0.0.1\" port=\""
            + pdp.address().getPort()
            + "\"/></pep>");
    return pdp;
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    audit.close();
    if (pdp != null) {
      pdp.close();
    }
    echo.close();
  }

  static Socket connect(InetSocketAddress a) throws IOException {
    Socket s = new Socket();
    s.connect(a, 5_000);
    s.setSoTimeout(5_000);
    return s;
  }

  static String roundTrip(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    byte[] b = s.getInputStream().readNBytes(text.length());
    return new String(b, StandardCharsets.US_ASCII);
  }

  /** True if the connection was closed (EOF or reset) within the socket's timeout. */
  static boolean closed(Socket s) throws IOException {
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  @Test
  void anAllowedConnectionGetsThroughAndADeniedOneIsClosed() throws Exception {
    try (Socket s = connect(allowed)) {
      assertEquals("hello", roundTrip(s, "hello"));
      assertEquals("again", roundTrip(s, "again"));
    }
    try (Socket s = connect(denied)) {
      s.getOutputStream().write("let me in".getBytes(StandardCharsets.US_ASCII));
      assertTrue(closed(s), "a denied connection is closed, nothing forwarded");
    }
    assertEquals(1, proxy.counters().allowed.get());
    assertEquals(1, proxy.counters().denied.get());
  }

  @Test
  void theMetricsEndpointCountsDecisionsAndDropsAndSaysReady() throws Exception {
    try (MetricsEndpoint m =
        ProxyMetrics.open(new InetSocketAddress("127.0.0.1", 0), proxy, audit)) {
      try (Socket s = connect(allowed)) {
        assertEquals("hi", roundTrip(s, "hi"));
      }
      try (Socket s = connect(denied)) {
        assertTrue(closed(s));
      }
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + m.address().getPort();
      String body =
          http.send(
                  HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      String c = "component=\"pep-proxy\"";
      assertTrue(
          body.contains("portcullis_proxy_decisions_total{" + c + ",outcome=\"allow\"} 1.0"), body);
      assertTrue(
          body.contains("portcullis_proxy_decisions_total{" + c + ",outcome=\"deny\"} 1.0"), body);
      assertTrue(body.contains("portcullis_proxy_pdp_connected{" + c + "} 1.0"), body);
      assertTrue(
          body.contains("portcullis_proxy_decision_seconds_count{" + c + "} 2"),
          "both decisions' round trips: " + body);
      assertTrue(
          body.contains("portcullis_proxy_decision_seconds_bucket{" + c + ",le=\"5.0\"} 2"), body);
      assertTrue(
          body.contains("portcullis_proxy_dropped_total{" + c + ",reason=\"no_pdp\"} 0.0"), body);
      assertEquals(
          200,
          http.send(
                  HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode());
      pdp.close();
      pdp = null;
      await().until(() -> !proxy.isReady());
      HttpResponse<String> ready =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(503, ready.statusCode());
      assertEquals("pdp: no PDP connection\n", ready.body());
    }
  }

  /** A real Prometheus scrapes the proxy (where it is installed; skipped elsewhere). */
  @Test
  void prometheusScrapesTheProxy() throws Exception {
    try (MetricsEndpoint m =
            ProxyMetrics.open(new InetSocketAddress("127.0.0.1", 0), proxy, audit);
        Prometheus prometheus = Prometheus.start(dir, Map.of("pep-proxy", m.address()))) {
      try (Socket s = connect(allowed)) {
        assertEquals("hi", roundTrip(s, "hi"));
      }
      String answer =
          prometheus.query(
              "portcullis_proxy_decisions_total{outcome=\"allow\"}",
              a -> a.contains("\"1\"]"),
              Duration.ofSeconds(60));
      assertTrue(answer.contains("\"component\":\"pep-proxy\""), answer);
      assertTrue(answer.contains("\"1\"]"), answer);
    }
  }

  @Test
  void aPolicyChangeCutsAnOpenConnectionAndEndedOnesAreDeleted() throws Exception {
    Socket keep = connect(allowed);
    assertEquals("one", roundTrip(keep, "one"));
    try (Socket done = connect(allowed)) {
      assertEquals("two", roundTrip(done, "two"));
    }
    await()
        .until(
            () ->
                proxy.pep().installed().get().size()
                    <= 1); // the ended connection's request state is deleted (DRQ)
    assertEquals(1, proxy.pep().installed().get().size(), "only the open connection's state");
    Files.writeString(
        dir.resolve("policy.xml"), ALLOW.replace("subject=\"alice\"", "subject=\"bob\""));
    pdp.reload(0xC0A5);
    assertTrue(closed(keep), "revoked: the open connection is closed");
    keep.close();
    assertEquals(1, proxy.counters().revoked.get());
    try (Socket s = connect(allowed)) {
      assertTrue(closed(s), "and new ones are denied");
    }
  }

  @Test
  void eachConnectionIsAuditedInTheHashChain() throws Exception {
    try (Socket s = connect(allowed)) {
      assertEquals("hello", roundTrip(s, "hello"));
    }
    try (Socket s = connect(denied)) {
      assertTrue(closed(s));
    }
    Socket keep = connect(allowed);
    assertEquals("one", roundTrip(keep, "one"));
    Files.writeString(dir.resolve("policy.xml"), ALLOW.replace("\"alice\"", "\"bob\""));
    pdp.reload(0xC0A5);
    assertTrue(closed(keep), "revoked");
    keep.close();
    proxy.close();
    audit.close(); // everything queued is written

    Path file = dir.resolve("proxy-audit.jsonl");
    assertTrue(AuditChain.verify(file).intact(), "the proxy's audit is one intact hash chain");
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      records.add(new ObjectMapper().readTree(line));
    }
    List<JsonNode> first = forHandle(records, "echo-1");
    assertEquals(
        List.of("proxy-decision", "proxy-opened", "proxy-closed"),
        first.stream().map(r -> r.get("event").asText()).toList());
    JsonNode decided = first.get(0);
    assertEquals("proxy-1", decided.get("pep").asText());
    assertEquals("alice", decided.get("subject").asText());
    assertEquals("install", decided.get("decision").asText());
    assertEquals("echo-alice", decided.get("rule").asText());
    assertEquals("echo", decided.get("service").asText());
    assertEquals("127.0.0.1:" + echo.address().getPort(), decided.get("upstream").asText());
    assertTrue(decided.get("client").asText().startsWith("127.0.0.1:"));
    assertEquals(5, first.get(2).get("bytesToUpstream").asLong());
    assertEquals(5, first.get(2).get("bytesToClient").asLong());

    List<JsonNode> refused = forHandle(records, "other-2");
    assertEquals("proxy-decision", refused.get(0).get("event").asText());
    assertEquals("remove", refused.get(0).get("decision").asText());
    assertEquals("no rule allows this", refused.get(0).get("reason").asText());

    List<String> cut =
        forHandle(records, "echo-3").stream().map(r -> r.get("event").asText()).toList();
    assertEquals(List.of("proxy-decision", "proxy-opened", "proxy-revoked", "proxy-closed"), cut);
  }

  private static List<JsonNode> forHandle(List<JsonNode> records, String handle) {
    return records.stream()
        .filter(r -> r.has("handle") && r.get("handle").asText().equals(handle))
        .toList();
  }

  /**
   * A PDP that shuts down says so (Client-Close, "shutting down") before it closes: that is losing
   * it too, and with on-pdp-loss="close-all" the open connections are cut. The PEP client took a
   * PDP's Client-Close for a connection it had never been accepted on, and told no one.
   */
  @Test
  void aPdpShuttingDownCutsOpenConnectionsUnderCloseAll() throws Exception {
    proxy.close();
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        Files.readString(dir.resolve("pep-proxy.xml"))
            .replace("service=\"echo\">", "service=\"echo\" on-pdp-loss=\"close-all\">"));
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
    proxy.ready().get(10, TimeUnit.SECONDS);
    try (Socket s = connect(proxy.addresses().get(0))) {
      assertEquals("open", roundTrip(s, "open"));
      pdp.close(); // Client-Close "shutting down", then the connection ends
      pdp = null;
      assertTrue(closed(s), "cut when the PDP went");
    }
    assertFalse(proxy.isReady());
  }

  /**
   * A proxy started before its PDP keeps asking: it is ready once the PDP comes up. It tried once,
   * said "no PDP yet ... refused until one accepts", and then never asked again.
   */
  @Test
  void aProxyStartedBeforeItsPdpServesOnceThePdpIsUp() throws Exception {
    proxy.close();
    int port = pdp.address().getPort();
    pdp.close();
    pdp = null;
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
    assertFalse(proxy.isReady(), "no PDP yet");
    Files.writeString(
        dir.resolve("pdp.xml"),
        Files.readString(dir.resolve("pdp.xml")).replace("port=\"0\"", "port=\"" + port + "\""));
    pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
    proxy.ready().get(20, TimeUnit.SECONDS);
    try (Socket s = connect(proxy.addresses().get(0))) {
      assertEquals("late", roundTrip(s, "late"));
    }
  }

  @Test
  void withoutAPdpNewConnectionsAreRefused() throws Exception {
    pdp.close();
    pdp = null;
    await().until(() -> !proxy.isReady());
    try (Socket s = connect(allowed)) {
      assertTrue(closed(s), "failing closed");
    }
    assertTrue(proxy.counters().failedClosed.get() >= 1);
  }

  @Test
  void aGrantWithAValidityServesNewConnectionsWhileThePdpIsAway() throws Exception {
    Files.writeString(
        dir.resolve("policy.xml"),
        ALLOW.replace( // alice's grant is valid for an hour
            "service=\"echo\"/></rule>", "service=\"echo\"/><grant valid-for=\"PT1H\"/></rule>"));
    pdp.reload(0xC0A5);
    try (Socket s = connect(allowed)) {
      assertEquals("granted", roundTrip(s, "granted"), "granted, valid for an hour");
    }
    try (Socket s = connect(denied)) {
      assertTrue(closed(s));
    }
    pdp.close();
    pdp = null;
    await().until(() -> !proxy.isReady());
    try (Socket s = connect(allowed)) {
      assertEquals("cached", roundTrip(s, "cached"), "alice's grant still holds");
    }
    try (Socket s = connect(denied)) {
      assertTrue(closed(s), "nothing else is allowed without a PDP");
    }
    assertEquals(1, proxy.counters().allowedFromCache.get());
  }

  @Test
  void aHalfCloseIsPassedOnAndEverythingArrives() throws Exception {
    try (Socket s = connect(allowed)) {
      byte[] data = new byte[200_000];
      for (int i = 0; i < data.length; i++) {
        data[i] = (byte) (i * 31);
      }
      Thread writer =
          new Thread(
              () -> {
                try {
                  s.getOutputStream().write(data);
                  s.shutdownOutput(); // done sending; still reading
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      writer.start();
      byte[] back = s.getInputStream().readAllBytes(); // until the upstream's own half-close
      writer.join();
      assertEquals(data.length, back.length);
      assertArrayEquals(data, back, "every byte, in order");
    }
  }

  /**
   * More bytes than the socket buffers on the path can hold between a writer and a reader that does
   * not read: the client's buffers are small and fixed here, but the proxy's two sockets and the
   * echo's one autotune up to the kernel's maxima (tcp_rmem, tcp_wmem: a 32 MiB receive buffer on
   * the CI machine), so the data exceeds three times their sum. (A fixed 32 MB was once absorbed
   * whole in CI, and the writer never stalled.)
   */
  static int moreThanThePathBuffers() {
    long most = (6L << 20) + (4L << 20); // Linux's defaults when /proc cannot be read
    try {
      most =
          lastField(Path.of("/proc/sys/net/ipv4/tcp_rmem"))
              + lastField(Path.of("/proc/sys/net/ipv4/tcp_wmem"));
    } catch (IOException | RuntimeException e) {
      // not Linux, or no procfs: the defaults above
    }
    return (int) Math.min(Integer.MAX_VALUE - 8, 3 * most + (8L << 20));
  }

  private static long lastField(Path f) throws IOException {
    // not Files.readString: on JDK 17 it returns one character of a /proc/sys file
    String text;
    try (InputStream in = Files.newInputStream(f)) {
      text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    String[] v = text.trim().split("\\s+");
    return Long.parseLong(v[v.length - 1]);
  }

  /**
   * A client that writes more than the path's socket buffers hold and reads nothing back: the
   * echo's answers fill the client's socket, the proxy stops reading the upstream, the echo stops
   * reading, the proxy stops reading the client, and the client's writes stall. The proxy holds no
   * more than its write-buffer marks meanwhile; then the reader catches up and every byte arrives,
   * in order.
   */
  @Test
  void aSlowReaderStallsItsWriterInsteadOfFillingTheProxy() throws Exception {
    byte[] data = new byte[moreThanThePathBuffers()];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 7 + (i >>> 16));
    }
    try (Socket s = new Socket()) {
      s.setReceiveBufferSize(64 * 1024); // before connecting: small, and not autotuned
      s.setSendBufferSize(64 * 1024);
      s.connect(allowed, 5_000);
      s.setSoTimeout(30_000);
      Thread writer =
          new Thread(
              () -> {
                try {
                  s.getOutputStream().write(data);
                  s.shutdownOutput();
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      writer.setDaemon(true);
      writer.start();
      long most = 0;
      // A real wait is the thing under test: for 1.5 s nothing reads, and the proxy must hold
      // no more than its buffers while the writer stalls.
      for (int i = 0; i < 150; i++) {
        most = Math.max(most, proxy.buffered());
        Thread.sleep(10); // the real wait under test, sampled every 10 ms
      }
      assertTrue(writer.isAlive(), "the writer stalls: back-pressure reached it");
      assertTrue(most <= 512 * 1024, "the proxy held " + most + " bytes at most");
      byte[] back = s.getInputStream().readAllBytes(); // now read at full speed
      writer.join(30_000);
      assertArrayEquals(data, back, "every byte, in order");
    }
  }

  /**
   * A connection stalled by an upstream that never reads: with reading paused the proxy cannot even
   * see its client leave, so the listener's idle-timeout closes it (both sides, counted).
   */
  @Test
  void aConnectionStalledByAnUpstreamThatNeverReadsIsClosedAfterTheIdleTimeout() throws Exception {
    try (ServerSocket deaf = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      proxy.close();
      Files.writeString(
          dir.resolve("pep-proxy.xml"),
          "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\""
              + " upstream=\"127.0.0.1:"
              + deaf.getLocalPort()
              + "\" service=\"echo\" idle-timeout=\"PT0.5S\">"
              + "<subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
      ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
      proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
      proxy.ready().get(10, TimeUnit.SECONDS);
      try (Socket client = connect(proxy.addresses().get(0))) {
        Thread writer =
            new Thread(
                () -> {
                  try {
                    client.getOutputStream().write(new byte[32 << 20]);
                  } catch (IOException e) {
                    // cut by the proxy: expected
                  }
                });
        writer.setDaemon(true);
        writer.start();
        try (Socket upstream = deaf.accept()) {
          assertTrue(upstream.isConnected(), "the upstream is connected and reads nothing");
          await().until(() -> proxy.open() <= 0);
          assertEquals(0, proxy.open(), "closed after the idle timeout");
          assertTrue(proxy.counters().idleClosed.get() >= 1);
          writer.join(5_000);
          assertFalse(writer.isAlive(), "the stalled writer was cut, not left hanging");
        }
      }
    }
  }

  /** An upstream that is down closes every connection; the log says so once, not per client. */
  @Test
  void anUnreachableUpstreamClosesConnectionsAndIsLoggedOnce() throws Exception {
    try (LogLines log = LogLines.of(UpstreamConnector.class)) {
      echo.close();
      for (int i = 0; i < 10; i++) {
        try (Socket s = connect(allowed)) {
          assertTrue(closed(s), "no upstream: closed");
        }
      }
      await().until(() -> proxy.counters().upstreamFailed.get() >= 10);
      assertEquals(10, proxy.counters().upstreamFailed.get());
      List<String> warnings =
          log.warnings().stream().filter(m -> m.contains("unreachable")).toList();
      assertEquals(1, warnings.size(), warnings.toString());
    }
  }

  /** SIGTERM's drain: no new connections, the open ones go on until they end (or the time). */
  @Test
  void aDrainStopsAcceptingAndLetsOpenConnectionsFinish() throws Exception {
    Socket open = connect(allowed);
    assertEquals("a", roundTrip(open, "a"));
    CompletableFuture<Integer> left =
        CompletableFuture.supplyAsync(() -> proxy.drain(Duration.ofSeconds(20)));
    await()
        .alias("no new connection while draining")
        .until(
            () -> {
              try (Socket s = new Socket()) {
                s.connect(allowed, 1_000);
                return false;
              } catch (IOException e) {
                return true; // the listener is closed
              }
            });
    assertTrue(proxy.draining());
    assertEquals("b", roundTrip(open, "b"), "an open connection is still served");
    assertFalse(left.isDone());
    open.close();
    assertEquals(0, left.get(10, TimeUnit.SECONDS), "drained once the last connection ended");
  }

  @Test
  void aDrainCutsWhatOutlivesIt() throws Exception {
    try (Socket open = connect(allowed)) {
      assertEquals("a", roundTrip(open, "a"));
      assertEquals(1, proxy.drain(Duration.ofMillis(200)));
      proxy.close();
      assertTrue(closed(open), "cut at the end of the drain");
    }
  }

  @Test
  void theDrainTimeIsConfiguredAndBounded() throws Exception {
    assertEquals(ProxyConfig.DEFAULT_DRAIN, ProxyConfig.load(dir.resolve("pep-proxy.xml")).drain());
    String listener =
        "<listener name=\"x\" listen=\"127.0.0.1:0\" upstream=\"127.0.0.1:1\" service=\"s\"/>";
    Files.writeString(
        dir.resolve("d.xml"),
        "<pep-proxy pep=\"pep.xml\"><shutdown drain=\"2s\"/>" + listener + "</pep-proxy>");
    assertEquals(Duration.ofSeconds(2), ProxyConfig.load(dir.resolve("d.xml")).drain());
    Files.writeString(
        dir.resolve("d.xml"),
        "<pep-proxy pep=\"pep.xml\">\n<shutdown drain=\"2h\"/>" + listener + "</pep-proxy>");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ProxyConfig.load(dir.resolve("d.xml")));
    assertEquals(2, e.line());
    assertEquals("drain", e.attribute());
  }

  @Test
  void aListenerTakesNoMoreThanItsMaxConnections() throws Exception {
    proxy.close();
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\" upstream=\"127.0.0.1:"
            + echo.address().getPort()
            + "\" service=\"echo\" max-connections=\"3\">"
            + "<subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
    proxy.ready().get(10, TimeUnit.SECONDS);
    InetSocketAddress a = proxy.addresses().get(0);
    List<Socket> three = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        three.add(connect(a));
        assertEquals("n" + i, roundTrip(three.get(i), "n" + i));
      }
      try (Socket fourth = connect(a)) {
        assertTrue(closed(fourth), "over max-connections: closed at once");
      }
      three.remove(0).close();
      // the freed place is counted back when the close lands
      Socket again =
          await()
              .pollInterval(Duration.ofMillis(20))
              .alias("a place freed is taken again")
              .until(
                  () -> {
                    Socket s = connect(a);
                    try {
                      if (roundTrip(s, "ok").equals("ok")) {
                        return s;
                      }
                    } catch (IOException e) {
                      // closed: not yet
                    }
                    s.close();
                    return null;
                  },
                  s -> s != null);
      three.add(again);
      assertTrue(proxy.counters().overLimit.get() >= 1);
    } finally {
      for (Socket s : three) {
        s.close();
      }
    }
  }

  @Test
  void aThousandConnectionsAtOnce() throws Exception {
    List<Socket> all = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        all.add(connect(allowed));
      }
      for (int i = 0; i < all.size(); i++) {
        assertEquals("c" + i, roundTrip(all.get(i), "c" + i));
      }
      assertEquals(1000, proxy.open());
    } finally {
      for (Socket s : all) {
        s.close();
      }
    }
  }

  @Test
  void anMlsLogoutCutsTheConnectionsItAllowed() throws Exception {
    proxy.close();
    pdp.close();
    // one PDP whose MLS sessions are the subject's, whichever PEP logged in (an embedded store)
    pdp = mlsPdp(dir, "<state store=\"embedded\"/>");
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"intel\" listen=\"127.0.0.1:0\" upstream=\"127.0.0.1:"
            + echo.address().getPort()
            + "\" service=\"intel-db\" access=\"read\">"
            + "<subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
    InetSocketAddress intel = proxy.addresses().get(0);
    try (PepClient terminal =
        PepClient.builder().pdp(pdp.address()).pepId("tpe-1").clientType(0xC0A6).build()) {
      terminal.open().get(10, TimeUnit.SECONDS);
      try (Socket s = connect(intel)) {
        assertTrue(closed(s), "no session yet: refused");
      }
      assertTrue(
          terminal
              .request(
                  "login",
                  new Context(Context.R_INCOMING, 0),
                  AccessRequest.login("alice", 2, List.of("NATO")))
              .get(10, TimeUnit.SECONDS)
              .granted());
      Socket s = connect(intel);
      assertEquals("secret", roundTrip(s, "secret"), "alice at SECRET may read intel-db");
      terminal
          .request(
              "logout",
              new Context(Context.R_INCOMING, 0),
              AccessRequest.of(AccessOperation.LOGOUT, "alice"))
          .get(10, TimeUnit.SECONDS);
      assertTrue(closed(s), "LOGOUT cut the connection it allowed");
      s.close();
    }
  }

  /**
   * A PDP deciding the multilevel client type by the sample policy ({@code config/policy-mls.xml}),
   * with {@code state} ({@code ""}: sessions its own), and the proxy's {@code pep.xml} for it.
   */
  static PdpServer mlsPdp(Path dir, String state) throws Exception {
    Files.copy(Path.of("../config/policy-mls.xml"), dir.resolve("policy-mls.xml"));
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp>"
            + state
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/></pdp>");
    PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
    Files.writeString(
        dir.resolve("pep.xml"),
        "<pep id=\"proxy-1\" client-type=\"0xC0A6\"><pdp address=\"127.0.0.1\" port=\""
            + pdp.address().getPort()
            + "\"/></pep>");
    return pdp;
  }

  /** A key manager holding a development credential (its PEM chain and key). */
  static KeyManagerFactory keys(DevCertificates.Credential c) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    List<Certificate> chain = new ArrayList<>();
    try (InputStream in = Files.newInputStream(c.certificateChain())) {
      chain.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
    char[] pw = "test".toCharArray();
    ks.setKeyEntry(
        "key",
        DevCertificates.privateKeyFile(c.privateKey()),
        pw,
        chain.toArray(new Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, pw);
    return kmf;
  }

  /** One TLS listener "echo" in front of the echo server, with {@code pki}'s server credential. */
  ProxyConfig tlsListener(DevCertificates.Pki pki) throws Exception {
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\" upstream=\"127.0.0.1:"
            + echo.address().getPort()
            + "\" service=\"echo\"><tls certificate=\""
            + pki.pdp().certificateChain()
            + "\" key=\""
            + pki.pdp().privateKey()
            + "\" trust=\""
            + pki.caCertificate()
            + "\"/></listener></pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    return cfg;
  }

  /** Trust in {@code pki}'s CA alone. */
  static TrustManagerFactory trusting(DevCertificates.Pki pki) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", DevCertificates.certificateFile(pki.caCertificate()));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    return tmf;
  }

  /** A client TLS context presenting {@code who}'s development certificate, trusting the CA. */
  static SSLContext client(DevCertificates.Pki pki, String who) throws Exception {
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(keys(pki.peps().get(who)).getKeyManagers(), trusting(pki).getTrustManagers(), null);
    return c;
  }

  @Test
  void tlsTerminationTakesTheSubjectFromTheClientCertificate() throws Exception {
    proxy.close();
    DevCertificates.Pki pki =
        DevCertificates.ensure(
            dir.resolve("pki"), List.of("127.0.0.1"), List.of("alice", "mallory"));
    ProxyConfig cfg = tlsListener(pki);
    proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
    proxy.ready().get(10, TimeUnit.SECONDS);
    InetSocketAddress tls = proxy.addresses().get(0);
    try (SSLSocket s =
        (SSLSocket)
            client(pki, "alice").getSocketFactory().createSocket(tls.getAddress(), tls.getPort())) {
      s.setSoTimeout(5_000);
      assertEquals("over tls", roundTrip(s, "over tls"), "alice, by her certificate, may use echo");
    }
    try (SSLSocket s =
        (SSLSocket)
            client(pki, "mallory")
                .getSocketFactory()
                .createSocket(tls.getAddress(), tls.getPort())) {
      s.setSoTimeout(5_000);
      s.startHandshake();
      s.getOutputStream().write('x');
      assertTrue(closed(s), "mallory is authenticated, and denied");
    }
    try (Socket plain = connect(tls)) {
      plain.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertTrue(closed(plain), "no TLS, no certificate: refused");
    }
    assertEquals(1, proxy.counters().allowed.get());
    assertEquals(1, proxy.counters().denied.get());
    assertTrue(proxy.counters().tlsRefused.get() >= 1);
  }

  /**
   * Clients an outsider can make at will — plain text on the TLS listener, a certificate from
   * another CA — are refused and summarised: the first of each kind logged, the rest counted in one
   * line. Each plain-text connection used to write Netty's "reached the tail of the pipeline" WARN
   * with a 33-line stack trace (300 connections: 0.94 MB), each bad certificate a line with
   * "General OpenSslEngine problem".
   */
  @Test
  void refusedTlsClientsAreSummarisedNotLoggedOneByOne() throws Exception {
    proxy.close();
    DevCertificates.Pki pki =
        DevCertificates.ensure(dir.resolve("pki"), List.of("127.0.0.1"), List.of("alice"));
    DevCertificates.Pki stranger =
        DevCertificates.ensure(dir.resolve("stranger-pki"), List.of("x"), List.of("mallory"));
    ProxyConfig cfg = tlsListener(pki);
    try (LogLines log = LogLines.all()) {
      proxy = new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE);
      InetSocketAddress tls = proxy.addresses().get(0);
      int plain = 150;
      for (int i = 0; i < plain; i++) {
        try (Socket s = connect(tls)) {
          s.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          assertTrue(closed(s), "no TLS: refused");
        }
      }
      // mallory trusts the proxy's CA, but her certificate is another CA's (self-made)
      SSLContext mallory = SSLContext.getInstance("TLS");
      mallory.init(
          keys(stranger.peps().get("mallory")).getKeyManagers(),
          trusting(pki).getTrustManagers(),
          null);
      for (int i = 0; i < 10; i++) {
        try (SSLSocket s =
            (SSLSocket) mallory.getSocketFactory().createSocket(tls.getAddress(), tls.getPort())) {
          s.setSoTimeout(5_000);
          s.startHandshake();
          s.getOutputStream().write('x');
          assertTrue(closed(s), "a certificate of another CA: refused");
        } catch (IOException e) {
          // refused during the handshake (TLS 1.2) or right after it (TLS 1.3)
        }
      }
      await() // the proxy's event loop counts each refusal after its client is gone
          .atMost(Duration.ofSeconds(10))
          .until(() -> proxy.counters().tlsRefused.get() >= plain + 10);
      proxy.close();
      List<String> lines = log.lines();
      assertTrue(
          lines.stream().noneMatch(l -> l.contains("reached the tail") || l.contains("OpenSsl")),
          String.join("\n", lines));
      List<String> refusals =
          lines.stream().filter(l -> l.contains("TLS from") || l.contains("TLS refusals")).toList();
      assertTrue(refusals.size() <= 3, "two kinds and one summary: " + refusals);
      assertTrue(refusals.stream().anyMatch(l -> l.contains("not TLS")), "says why: " + refusals);
      assertTrue(
          refusals.stream().anyMatch(l -> l.contains("more TLS refusals") && l.contains("149")),
          "and counts the rest: " + refusals);
    }
  }

  /** A TLS echo server with the development PKI's server certificate (it names 127.0.0.1). */
  static SSLServerSocket tlsEcho(DevCertificates.Pki pki) throws Exception {
    KeyManagerFactory kmf = keys(pki.pdp());
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(kmf.getKeyManagers(), null, null);
    SSLServerSocket server =
        (SSLServerSocket)
            c.getServerSocketFactory().createServerSocket(0, 64, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                  InputStream in = s.getInputStream();
                  byte[] b = new byte[1024];
                  for (int n; (n = in.read(b)) > 0; ) {
                    s.getOutputStream().write(b, 0, n);
                  }
                } catch (IOException e) {
                  // next
                }
              }
            });
    t.setDaemon(true);
    t.start();
    return server;
  }

  @Test
  void tlsToTheUpstreamChecksItsCertificate() throws Exception {
    proxy.close();
    DevCertificates.Pki pki =
        DevCertificates.ensure(dir.resolve("pki"), List.of("127.0.0.1"), List.of());
    DevCertificates.Pki other =
        DevCertificates.ensure(dir.resolve("other-pki"), List.of("127.0.0.1"), List.of());
    try (SSLServerSocket upstream = tlsEcho(pki)) {
      for (DevCertificates.Pki trusted : List.of(pki, other)) {
        Files.writeString(
            dir.resolve("pep-proxy.xml"),
            "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\""
                + " upstream=\"127.0.0.1:"
                + upstream.getLocalPort()
                + "\" upstream-trust=\""
                + trusted.caCertificate()
                + "\" service=\"echo\"><subject source=\"127.0.0.0/8\" name=\"alice\"/>"
                + "</listener></pep-proxy>");
        ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
        try (PepProxy p =
            new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, AuditLog.NONE)) {
          p.ready().get(10, TimeUnit.SECONDS);
          try (Socket s = connect(p.addresses().get(0))) {
            if (trusted == pki) {
              assertEquals("tls upstream", roundTrip(s, "tls upstream"));
            } else {
              s.getOutputStream().write('x');
              assertTrue(closed(s), "an upstream certificate from another CA: closed");
            }
          }
        }
      }
    }
  }
}
