package dev.portcullis.bench;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Threads;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What the PEP proxy costs, side by side in one run on loopback (docs/pep-proxy.md): connect + one
 * request and response (netperf's TCP_CRR) and streaming throughput, directly to an upstream and
 * through the proxy with a PDP decision per connection; and how long a policy change takes to cut
 * 1,000 open connections. The anchor is HAProxy forwarding the same upstream without a decision,
 * where it is installed.
 */
@Command(
    name = "proxy-bench",
    mixinStandardHelpOptions = true,
    description =
        "Measure the PEP proxy against a direct connection and HAProxy, and its revocation time.")
public final class ProxyBench implements Callable<Integer> {
  @Option(
      names = "--connects",
      defaultValue = "2000",
      description = "CRR per cell (default: ${DEFAULT-VALUE}).")
  int connects;

  @Option(
      names = "--megabytes",
      defaultValue = "256",
      description = "Streamed per cell (default: ${DEFAULT-VALUE}).")
  int megabytes;

  @Option(
      names = "--open",
      defaultValue = "1000",
      description =
          "Connections cut by one revocation, each way (0: no revocation; default:"
              + " ${DEFAULT-VALUE}).")
  int open;

  @Option(
      names = "--routes",
      split = ",",
      defaultValue = "direct,haproxy,decided,with-request,reuse",
      description =
          "The CRR and streaming cells: direct, haproxy, decided (a decision each), with-request,"
              + " reuse; one alone, with --open 0, is how a route's system calls are counted with"
              + " perf (default: ${DEFAULT-VALUE}).")
  List<String> routes;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Rounds the cells take turns in (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--threads",
      defaultValue = "1",
      description =
          "The proxy's event-loop threads (default: ${DEFAULT-VALUE}, as HAProxy's nbthread 1 in"
              + " the anchor; the proxy command's own default is 2 x cores).")
  int threads;

  @Option(
      names = "--haproxy",
      paramLabel = "PATH",
      description = "The HAProxy executable for the anchor (default: haproxy on the PATH).")
  Path haproxy;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static final String RULES =
      "<rules><rule id=\"bench\" decision=\"install\" reason=\"measuring\">"
          + "<match operation=\"ACCESS\" subject=\"alice\" service=\"bench\"/>"
          + "<grant valid-for=\"PT1H\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule allows this\"/></rules>";

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("proxy-bench", new ProxyBench()).execute(args));
  }

  /**
   * An upstream answering each 1-byte read with 1 byte and swallowing streams, on one selector
   * thread (a thread per connection would put 1,000 threads between the revocation and its
   * measurement on this 2-core machine).
   */
  static final class Upstream implements AutoCloseable {
    final ServerSocketChannel server = ServerSocketChannel.open();
    final Selector selector = Selector.open();
    final Thread loop;

    Upstream() throws IOException {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
      loop = Threads.start("proxy-bench-upstream", this::serve);
    }

    private void serve() {
      ByteBuffer b = ByteBuffer.allocateDirect(65536);
      ByteBuffer one = ByteBuffer.allocateDirect(1);
      try {
        while (selector.isOpen()) {
          selector.select();
          for (SelectionKey k : selector.selectedKeys()) {
            if (!k.isValid()) {
              continue;
            }
            if (k.isAcceptable()) {
              SocketChannel c = server.accept();
              if (c != null) {
                c.configureBlocking(false);
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.register(selector, SelectionKey.OP_READ);
              }
            } else if (k.isReadable()) {
              SocketChannel c = (SocketChannel) k.channel();
              b.clear();
              int n;
              try {
                n = c.read(b);
              } catch (IOException e) {
                n = -1;
              }
              if (n < 0) {
                k.cancel();
                c.close();
              } else if (n == 1) {
                one.clear();
                one.put((byte) 1).flip();
                c.write(one); // a request: answer it (1 byte always fits the socket buffer)
              }
            }
          }
          selector.selectedKeys().clear();
        }
      } catch (IOException | ClosedSelectorException e) {
        // closed
      }
    }

    InetSocketAddress address() throws IOException {
      return (InetSocketAddress) server.getLocalAddress();
    }

    @Override
    public void close() throws IOException {
      selector.close();
      server.close();
    }
  }

  static long crr(InetSocketAddress to) throws IOException {
    long t0 = System.nanoTime();
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.connect(to, 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write(1);
      if (s.getInputStream().read() < 0) {
        throw new IOException("closed before the answer");
      }
    }
    return System.nanoTime() - t0;
  }

  static double stream(InetSocketAddress to, long bytes) throws IOException {
    byte[] chunk = new byte[64 * 1024];
    long t0 = System.nanoTime();
    try (Socket s = new Socket()) {
      s.connect(to, 5_000);
      OutputStream out = s.getOutputStream();
      for (long sent = 0; sent < bytes; sent += chunk.length) {
        out.write(chunk);
      }
      s.shutdownOutput();
      s.setSoTimeout(30_000);
      s.getInputStream().read(); // the upstream closes after it read everything
    }
    return bytes / ((System.nanoTime() - t0) / 1e9) / 1e6;
  }

  /** One way to reach the upstream, and what it measured. */
  private static final class Route {
    final String name;
    final InetSocketAddress address;
    final List<Long> crr = new ArrayList<>();
    double megabytesPerSecond;

    Route(String name, InetSocketAddress address) {
      this.name = name;
      this.address = address;
    }

    long p(double q) {
      return Quantiles.at(crr.stream().mapToLong(Long::longValue).toArray(), q);
    }
  }

  /** HAProxy in front of {@code upstream}, or null (said on {@code out}) when it cannot run. */
  private static Haproxy anchor(Path binary, Path dir, InetSocketAddress upstream, PrintWriter out)
      throws InterruptedException {
    if (binary == null) {
      out.println("anchor: no haproxy on the PATH or in /usr/sbin: measured against direct only");
      return null;
    }
    try {
      return Haproxy.start(binary, dir, upstream);
    } catch (IOException e) {
      out.println("anchor: " + e.getMessage() + ": measured against direct only");
      return null;
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("portcullis-proxy-bench");
    Path haproxyBinary = haproxy != null ? haproxy : Haproxy.find();
    try (Upstream up = new Upstream()) {
      Files.writeString(dir.resolve("policy.xml"), RULES);
      Files.writeString(
          dir.resolve("pdp.xml"),
          "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
              + "<limits max-handles=\"1000000\"/>"
              + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"policy.xml\"/>"
              + "<stats interval=\"PT1H\"/></pdp>");
      try (PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
          PepProxy proxy = ProxyFixture.start(dir, pdp.address(), up.address(), "bench", threads);
          Haproxy anchor = anchor(haproxyBinary, dir, up.address(), out)) {
        InetSocketAddress via = proxy.addresses().get(0);
        Route haproxyRoute = null;
        if (anchor != null) {
          haproxyRoute = new Route("HAProxy (no decision)", anchor.address());
          out.println("anchor: " + Haproxy.version(haproxyBinary) + ", one thread, tcp mode");
        }
        Route proxied = new Route("Portcullis proxy (a decision each)", via);
        Route ahead =
            new Route("  connecting with the request", proxy.addresses().get(1)); // overlapped
        Route reuse = new Route("  reusing the subject's grant", proxy.addresses().get(2));
        List<Route> paths = new ArrayList<>();
        for (String r : routes) {
          Route route =
              switch (r) {
                case "direct" -> new Route("direct", up.address());
                case "haproxy" -> haproxyRoute;
                case "decided" -> proxied;
                case "with-request" -> ahead;
                case "reuse" -> reuse;
                default ->
                    throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--routes: no route "
                            + r
                            + " (expected: direct, haproxy, decided, with-request, reuse)");
              };
          if (route != null) {
            paths.add(route);
          }
        }
        if (paths.isEmpty()) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--routes: none to run");
        }
        for (int i = 0; i < Math.max(100, connects / 5); i++) {
          for (Route p : paths) {
            crr(p.address);
          }
        }
        long bytes = (long) megabytes * 1024 * 1024 / rounds;
        for (int r = 0; r < rounds; r++) {
          for (int i = 0; i < connects / rounds; i++) {
            for (Route p : paths) {
              p.crr.add(crr(p.address));
            }
          }
          for (Route p : paths) {
            p.megabytesPerSecond += stream(p.address, bytes) / rounds;
          }
        }
        Route base = paths.contains(haproxyRoute) ? haproxyRoute : paths.get(0);
        out.printf(
            "connect + 1-byte request + answer (TCP_CRR), %d each, %d rounds, cells interleaved%n",
            connects, rounds);
        out.printf("%-36s %9s %9s %9s%n", "", "p50 us", "p99 us", "p50 ratio");
        for (Route p : paths) {
          out.printf(
              "%-36s %9.1f %9.1f %9s%n",
              p.name,
              p.p(0.5) / 1e3,
              p.p(0.99) / 1e3,
              p == paths.get(0)
                  ? ""
                  : String.format("%.2fx", (double) p.p(0.5) / paths.get(0).p(0.5)));
        }
        out.printf("%nstreaming, %d MiB each, MB/s%n", megabytes);
        for (Route p : paths) {
          out.printf(
              "%-36s %9.0f %9s%n",
              p.name,
              p.megabytesPerSecond,
              p == paths.get(0)
                  ? ""
                  : String.format("%.2fx", p.megabytesPerSecond / paths.get(0).megabytesPerSecond));
        }
        if (base == haproxyRoute && paths.containsAll(List.of(proxied, ahead, reuse))) {
          out.printf(
              "%nagainst %s: CRR p50 %.2fx (aim <= 1.5x), streaming %.2fx (aim >= 0.9x);"
                  + " connecting with the request: CRR p50 %.2fx; reusing the grant: CRR p50"
                  + " %.2fx%n",
              base.name,
              (double) proxied.p(0.5) / base.p(0.5),
              proxied.megabytesPerSecond / base.megabytesPerSecond,
              (double) ahead.p(0.5) / base.p(0.5),
              (double) reuse.p(0.5) / base.p(0.5));
        }
        if (open > 0) {
          revocation(out, dir, pdp, proxy, via, "each decided on its own request");
          Files.writeString(dir.resolve("policy.xml"), RULES); // alice again: a new grant
          pdp.reload(0xC0A5);
          revocation(
              out, dir, pdp, proxy, proxy.addresses().get(2), "admitted on one reused grant");
        }
        out.println("proxy: " + proxy.counters());
      }
    } finally {
      Scratch.delete(dir);
    }
    out.flush();
    return 0;
  }

  /**
   * {@link #open} connections through {@code via}, then a policy that no longer allows them: how
   * long until the last is closed. Their ends are seen by one selector, so each close is timed when
   * it happens.
   */
  private void revocation(
      PrintWriter out, Path dir, PdpServer pdp, PepProxy proxy, InetSocketAddress via, String how)
      throws Exception {
    List<SocketChannel> held = new ArrayList<>();
    try (Selector selector = Selector.open()) {
      for (int i = 0; i < open; i++) {
        Socket s = new Socket();
        s.connect(via, 5_000);
        s.getOutputStream().write(1);
        s.setSoTimeout(10_000);
        s.getInputStream().read();
        s.close(); // warm the path; the measured ones are non-blocking below
        SocketChannel ch = SocketChannel.open(via);
        ch.write(ByteBuffer.wrap(new byte[] {1}));
        ByteBuffer one = ByteBuffer.allocate(1);
        while (one.hasRemaining()) {
          ch.read(one);
        }
        ch.configureBlocking(false);
        ch.register(selector, SelectionKey.OP_READ, i);
        held.add(ch);
      }
      Files.writeString(dir.resolve("policy.xml"), RULES.replace("alice", "nobody"));
      proxy.counters().firstRevocationAt.set(0);
      long t0 = System.nanoTime();
      pdp.reload(0xC0A5);
      long[] cut = new long[open];
      int closed = 0;
      ByteBuffer sink = ByteBuffer.allocate(64);
      while (closed < open) {
        if (selector.select(10_000) == 0) {
          throw new IllegalStateException((open - closed) + " connections still open");
        }
        long now = System.nanoTime();
        for (SelectionKey k : selector.selectedKeys()) {
          sink.clear();
          int n;
          try {
            n = ((SocketChannel) k.channel()).read(sink);
          } catch (IOException e) {
            n = -1; // reset
          }
          if (n < 0) {
            cut[closed++] = now;
            k.cancel();
          }
        }
        selector.selectedKeys().clear();
      }
      long dec = proxy.counters().firstRevocationAt.get();
      long last = 0;
      for (long c : cut) {
        last = Math.max(last, c);
      }
      out.printf(
          "%nrevocation: %d open connections (%s) cut by one policy reload: the first DEC"
              + " reached the proxy %.1f ms after the reload began, the last cut began %.1f ms"
              + " after it; all %d closed %.1f ms after the first DEC%n",
          open,
          how,
          (dec - t0) / 1e6,
          (proxy.counters().lastRevocationAt.get() - dec) / 1e6,
          open,
          (last - dec) / 1e6);
    } finally {
      for (SocketChannel ch : held) {
        ch.close();
      }
    }
  }
}
