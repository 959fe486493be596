package dev.portcullis.pep.proxy;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.Timebase;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code upstream-connect}: with the request, the upstream connection is made while the decision is
 * pending, and still nothing passes either way before the Install; after the Install (the default),
 * a denied client never reaches the service at all. The upstream greets every connection first (as
 * SSH and SMTP servers do), so a byte relayed too early would show at the client.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProxyConnectAheadTest {
  private static final String BANNER = "HELLO\n";

  @TempDir Path dir;
  private PdpServer pdp;
  private PepProxy proxy;
  private AuditLog audit;
  private Greeter upstream;

  /** An upstream that greets, then echoes; it counts connections and the bytes it received. */
  static final class Greeter implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    final AtomicInteger accepted = new AtomicInteger();
    final AtomicInteger ended = new AtomicInteger();
    final AtomicLong received = new AtomicLong();

    Greeter() throws IOException {
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    accepted.incrementAndGet();
                    Thread c = new Thread(() -> serve(s));
                    c.setDaemon(true);
                    c.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      t.setDaemon(true);
      t.start();
    }

    private void serve(Socket s) {
      try (s) {
        OutputStream out = s.getOutputStream();
        out.write(BANNER.getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        byte[] b = new byte[4096];
        for (int n; (n = in.read(b)) > 0; ) {
          received.addAndGet(n);
          out.write(b, 0, n);
        }
      } catch (IOException e) {
        // the proxy went
      } finally {
        ended.incrementAndGet();
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /** A PDP allowing alice the echo service only, and a proxy whose listeners connect as given. */
  private void start(String upstreamConnect) throws Exception {
    upstream = new Greeter();
    pdp = PepProxyTest.allowingPdp(dir);
    String up = "127.0.0.1:" + upstream.server.getLocalPort();
    StringBuilder listeners = new StringBuilder();
    for (String service : new String[] {"echo", "other"}) {
      listeners
          .append("<listener name=\"")
          .append(service)
          .append("\" listen=\"127.0.0.1:0\" upstream=\"")
          .append(up)
          .append("\" service=\"")
          .append(service)
          .append('"')
          .append(upstreamConnect == null ? "" : " upstream-connect=\"" + upstreamConnect + "\"")
          .append("><subject source=\"127.0.0.0/8\" name=\"alice\"/></listener>");
    }
    Files.writeString(
        dir.resolve("pep-proxy.xml"), "<pep-proxy pep=\"pep.xml\">" + listeners + "</pep-proxy>");
    audit = AuditLog.open(dir.resolve("proxy-audit.jsonl"));
    proxy = PepProxyTest.started(dir, audit, Timebase.SYSTEM);
  }

  @AfterEach
  void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
      audit.close();
      pdp.close();
      upstream.close();
    }
  }

  private String read(Socket s, int n) throws IOException {
    return new String(s.getInputStream().readNBytes(n), StandardCharsets.US_ASCII);
  }

  @Test
  void withTheRequestAnAllowedConnectionIsGreetedAndEchoed() throws Exception {
    start("with-request");
    try (Socket s = PepProxyTest.connect(proxy.addresses().get(0))) {
      assertEquals(BANNER, read(s, BANNER.length()));
      assertEquals("ping", PepProxyTest.roundTrip(s, "ping"));
    }
    assertEquals(1, proxy.counters().allowed.get());
  }

  @Test
  void withTheRequestADeniedClientGetsNoByteAndSendsNone() throws Exception {
    start("with-request");
    try (Socket s = PepProxyTest.connect(proxy.addresses().get(1))) {
      s.getOutputStream().write("sent before the decision".getBytes(StandardCharsets.US_ASCII));
      // the upstream's greeting was there to relay: a closed connection with nothing read
      assertTrue(PepProxyTest.closed(s), "denied: closed, not greeted");
    }
    await().until(() -> upstream.ended.get() == 1); // it was connected, and closed unused
    assertEquals(1, upstream.accepted.get());
    assertEquals(0, upstream.received.get(), "nothing the denied client sent reached the service");
    assertEquals(1, proxy.counters().denied.get());
  }

  @Test
  void afterTheInstallADeniedClientNeverReachesTheService() throws Exception {
    start(null); // the default
    try (Socket s = PepProxyTest.connect(proxy.addresses().get(1))) {
      assertTrue(PepProxyTest.closed(s));
    }
    try (Socket s = PepProxyTest.connect(proxy.addresses().get(0))) {
      assertEquals(BANNER, read(s, BANNER.length()));
    }
    await().until(() -> upstream.accepted.get() == 1);
    assertEquals(1, upstream.accepted.get(), "only the allowed client's connection");
  }
}
