package dev.portcullis.bench;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.pep.proxy.ProxyConfig;
import dev.portcullis.support.HostPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The benchmarks' PEP proxy: two listeners on loopback in front of {@code upstream}, subject {@code
 * alice} for every loopback client, deciding each connection at {@code pdp}, one event-loop thread,
 * no audit. The first ({@code addresses().get(0)}) connects upstream after the Install, the second
 * while the decision is pending ({@code upstream-connect="with-request"}), the third admits a
 * subject holding a grant with a validity on it without a request each ({@code grants="reuse"}).
 */
public final class ProxyFixture {
  private ProxyFixture() {}

  /** Starts the proxy on one event loop and waits (at most 10 s) until its PEP is open. */
  public static PepProxy start(
      Path dir, InetSocketAddress pdp, InetSocketAddress upstream, String service)
      throws Exception {
    return start(dir, pdp, upstream, service, 1);
  }

  /** Starts the proxy on {@code threads} event loops and waits until its PEP is open. */
  public static PepProxy start(
      Path dir, InetSocketAddress pdp, InetSocketAddress upstream, String service, int threads)
      throws Exception {
    return start(
        dir, pdp, upstream, service, threads, InetAddress.getLoopbackAddress(), "127.0.0.0/8");
  }

  /**
   * Starts the proxy on {@code threads} event loops, its listeners on {@code listen} (ports of the
   * system's choosing) for the subject alice from {@code clients}, and waits until its PEP is open.
   */
  public static PepProxy start(
      Path dir,
      InetSocketAddress pdp,
      InetSocketAddress upstream,
      String service,
      int threads,
      InetAddress listen,
      String clients)
      throws Exception {
    Files.writeString(
        dir.resolve("pep.xml"),
        "<pep id=\"bench-proxy\"><pdp address=\"127.0.0.1\" port=\""
            + pdp.getPort()
            + "\"/></pep>");
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\">"
            + listener("bench", listen, clients, upstream, service, "after-install")
            + listener("bench-ahead", listen, clients, upstream, service, "with-request")
            + listener(
                "bench-reuse", listen, clients, upstream, service, "after-install\" grants=\"reuse")
            + "</pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    PepProxy proxy =
        new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), threads, AuditLog.NONE);
    try {
      proxy.ready().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      proxy.close();
      throw new IOException("the proxy's PEP did not open at the PDP " + HostPort.of(pdp));
    }
    return proxy;
  }

  private static String listener(
      String name,
      InetAddress listen,
      String clients,
      InetSocketAddress upstream,
      String service,
      String upstreamConnect) {
    return "<listener name=\""
        + name
        + "\" listen=\""
        + listen.getHostAddress()
        + ":0\" upstream=\""
        + HostPort.of(upstream)
        + "\" service=\""
        + service
        + "\" max-connections=\"100000\" upstream-connect=\""
        + upstreamConnect
        + "\"><subject source=\""
        + clients
        + "\" name=\"alice\"/></listener>";
  }
}
