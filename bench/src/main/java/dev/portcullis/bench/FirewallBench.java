package dev.portcullis.bench;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.nativecrypto.NetworkNamespaces;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.firewall.HostFirewall;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.support.Cli;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.Threads;
import dev.portcullis.tunnel.lab.NetworkLab;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The host firewall against no policy, in the network lab (issue 45's aims; docs/benchmarks.md):
 * two namespaces on a veth, the services in one, the client in the other, the firewall's kernel
 * side in the server's namespace, a rules PDP on loopback. Cells interleaved in rounds: a new
 * connection with a 1-byte request and answer (TCP_CRR) with no policy, with a decision each, and
 * on a reused grant; the PDP's own decision round trip beside them; a stream through an allowed
 * flow and through no policy; then {@code --flows} established flows ended by one policy change.
 */
@Command(
    name = "firewall-bench",
    mixinStandardHelpOptions = true,
    description = "Measure the host firewall beside no policy in the network lab (root).")
public final class FirewallBench implements Callable<Integer> {
  @Option(
      names = "--connects",
      defaultValue = "2000",
      description = "Connections per cell (default: ${DEFAULT-VALUE}).")
  int connects;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Rounds the cells alternate in (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--megabytes",
      defaultValue = "200",
      description = "Megabytes streamed per stream cell and round (default: ${DEFAULT-VALUE}).")
  int megabytes;

  @Option(
      names = "--flows",
      defaultValue = "1000",
      description = "Established flows ended by one policy change (default: ${DEFAULT-VALUE}).")
  int flows;

  @Option(
      names = "--held",
      defaultValue = "100000",
      description =
          "Allowed flows made and held at the end, to report memory per flow (default:"
              + " ${DEFAULT-VALUE}; 0: none).")
  int held;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static final int PER_DECISION = 7000; // "per": a decision each
  static final int REUSED = 7001; // "reused": alice's grant, valid for an hour
  static final int OPEN = 7002; // no policy
  static final int HAPROXY = 7003; // HAProxy in front of OPEN
  static final String POLICY =
      "<rules><rule id=\"per\" decision=\"install\"><match subject=\"alice\" service=\"per\"/>"
          + "</rule><rule id=\"reused\" decision=\"install\">"
          + "<match subject=\"alice\" service=\"reused\"/><grant valid-for=\"PT1H\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule\"/></rules>";
  static final String NOBODY = "<rules><default decision=\"remove\" reason=\"closed\"/></rules>";

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("firewall-bench", new FirewallBench()).execute(args));
  }

  /** Why it cannot run here, or null. */
  static String unavailable() {
    String why = NetworkLab.unavailable();
    if (why == null) {
      why = HostFirewall.unavailable();
    }
    if (why == null) {
      why = NetworkNamespaces.unavailable();
    }
    return why;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    String why = unavailable();
    if (why != null) {
      spec.commandLine()
          .getErr()
          .println("firewall-bench: the network lab cannot run here: " + why);
      return Cli.FAILED;
    }
    out.println("making the network lab, a PDP and the firewall...");
    out.flush();
    Path dir = Files.createTempDirectory("portcullis-firewall-bench");
    List<AutoCloseable> open = new ArrayList<>();
    try (NetworkLab lab = NetworkLab.create(dir)) {
      NetworkLab.Side server = lab.b();
      NetworkLab.Side client = lab.a();
      lab.exec(
          server,
          "iptables",
          "-A",
          "INPUT",
          "-m",
          "conntrack",
          "--ctstate",
          "ESTABLISHED,RELATED",
          "-j",
          "ACCEPT");
      DurableFiles.write(dir.resolve("rules.xml"), POLICY.getBytes(StandardCharsets.UTF_8));
      DurableFiles.write(
          dir.resolve("pdp.xml"),
          ("<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
                  + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>")
              .getBytes(StandardCharsets.UTF_8));
      // the PDP, the PEPs and the proxy are made on a thread in the server's namespace: their
      // event loops' threads, made by it, are there too, and so is every socket they open (the
      // PDP on that namespace's loopback, the proxy's listeners on its veth address)
      PdpServer pdp =
          in(server, () -> PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1)).get();
      open.add(pdp);
      HostFirewall.Removals removals = new HostFirewall.Removals();
      // when the first revoking DEC reaches the PEP (nanoTime; 0: none yet): the aim's start
      java.util.concurrent.atomic.AtomicLong firstRemove =
          new java.util.concurrent.atomic.AtomicLong();
      dev.portcullis.pep.PepListener listener =
          new dev.portcullis.pep.PepListener() {
            @Override
            public void decisionChanged(String handle, dev.portcullis.pep.PepDecision d) {
              if (!d.granted()) {
                firstRemove.compareAndSet(0, System.nanoTime());
              }
              removals.decisionChanged(handle, d);
            }

            @Override
            public void disconnected(dev.portcullis.pep.PepException reason) {
              removals.disconnected(reason);
            }
          };
      PepClient pep =
          in(
                  server,
                  () -> {
                    PepClient c =
                        PepClient.builder()
                            .pdp(pdp.address())
                            .pepId("bench-host")
                            .clientType(0xC0A5)
                            .listener(listener)
                            .build();
                    c.open().get(10, TimeUnit.SECONDS);
                    return c;
                  })
              .get();
      open.add(pep);
      Inet4Address serverIp = (Inet4Address) InetAddress.getByName(server.outer());
      InetAddress clientIp = InetAddress.getByName(client.outer());
      for (int port : new int[] {PER_DECISION, REUSED, OPEN}) {
        ServerSocketChannel s =
            in(
                    server,
                    () -> {
                      ServerSocketChannel c = ServerSocketChannel.open();
                      c.bind(new InetSocketAddress(serverIp, port), 4096);
                      return c;
                    })
                .get();
        open.add(EchoService.start(s, "bench-service-" + port));
      }
      HostFirewall firewall =
          HostFirewall.start(
              new HostFirewall.Settings(
                  "bench",
                  11,
                  List.of(
                      new HostFirewall.Service("per", serverIp, PER_DECISION, AccessMode.READ),
                      new HostFirewall.Service("reused", serverIp, REUSED, AccessMode.READ)),
                  a -> a.equals(clientIp) || held(a) ? "alice" : null,
                  Duration.ofMinutes(5),
                  1 << 20,
                  false,
                  HostFirewall.DEFAULT_MARK,
                  Map.of()),
              pep,
              removals,
              null,
              () -> enter(server));
      open.add(firewall);
      // beside it, the same upstream through the PEP proxy (a decision each, and reusing alice's
      // grant) and through HAProxy (no decision), both in the server's namespace
      InetSocketAddress upstream = new InetSocketAddress(serverIp, OPEN);
      PepProxy proxy =
          in(
                  server,
                  () ->
                      ProxyFixture.start(
                          dir,
                          pdp.address(),
                          upstream,
                          "reused",
                          1,
                          serverIp,
                          clientIp.getHostAddress() + "/32"))
              .get();
      open.add(proxy);
      Path haproxyBinary = Haproxy.find();
      Haproxy haproxy = null;
      if (haproxyBinary == null) {
        out.println("no haproxy on the PATH or in /usr/sbin: its cells are left out");
      } else {
        haproxy =
            Haproxy.start(
                List.of("ip", "netns", "exec", server.namespace()),
                haproxyBinary,
                dir,
                new InetSocketAddress(serverIp, HAPROXY),
                upstream,
                a -> {
                  try {
                    return in(client, () -> connects(a)).get();
                  } catch (Exception e) {
                    return false;
                  }
                });
        open.add(haproxy);
        out.println("HAProxy: " + Haproxy.version(haproxyBinary) + ", one thread, tcp mode");
      }
      Map<String, InetSocketAddress> routes = new LinkedHashMap<>();
      routes.put("no policy", upstream);
      if (haproxy != null) {
        routes.put("HAProxy (no decision)", haproxy.address());
      }
      routes.put("firewall, a decision each", new InetSocketAddress(serverIp, PER_DECISION));
      routes.put("firewall, on a reused grant", new InetSocketAddress(serverIp, REUSED));
      routes.put("PEP proxy, a decision each", proxy.addresses().get(0));
      routes.put("PEP proxy, reusing the grant", proxy.addresses().get(2));
      out.printf("measuring: %d connections per cell in %d rounds...%n", connects, rounds);
      out.flush();
      Map<String, List<Long>> crr = new LinkedHashMap<>();
      for (String route : routes.keySet()) {
        crr.put(route, new ArrayList<>());
      }
      String rtt = "the PDP's decision round trip (no connection)";
      crr.put(rtt, new ArrayList<>());
      int per = Math.max(1, connects / rounds);
      AccessRequest ask =
          new AccessRequest(
              AccessOperation.ACCESS,
              "alice",
              null,
              null,
              clientIp,
              40000,
              serverIp,
              PER_DECISION,
              6,
              "per",
              AccessMode.READ,
              null,
              null);
      Context ctx = new Context(Context.R_INCOMING, 0);
      for (int i = 0; i < Math.min(200, per); i++) { // warm-up
        for (InetSocketAddress a : routes.values()) {
          in(client, () -> crr(a)).get();
        }
      }
      for (int r = 0; r < rounds; r++) {
        for (Map.Entry<String, InetSocketAddress> e : routes.entrySet()) {
          crr.get(e.getKey()).addAll(in(client, () -> crrs(e.getValue(), per)).get());
        }
        for (int i = 0; i < per; i++) {
          long t0 = System.nanoTime();
          pep.request("bench-ask", ctx, ask).get(10, TimeUnit.SECONDS);
          crr.get(rtt).add(System.nanoTime() - t0);
        }
      }
      out.printf(
          "%nconnect + 1-byte request + answer (TCP_CRR), %d each, %d rounds interleaved%n",
          per * rounds, rounds);
      FleetBench.micros(out, "cell", crr, "no policy");
      double base = Quantiles.at(FleetBench.array(crr.get("no policy")), 0.5);
      double decision = Quantiles.at(FleetBench.array(crr.get("firewall, a decision each")), 0.5);
      double pdpRtt = Quantiles.at(FleetBench.array(crr.get(rtt)), 0.5);
      out.printf(
          "  a decision each over no policy: +%.1f us p50, of which the PDP's round trip %.1f us:"
              + " %.1f us the firewall's own (aim: 100 us)%n",
          (decision - base) / 1e3, pdpRtt / 1e3, (decision - base - pdpRtt) / 1e3);

      // streams: through an allowed flow (the reused grant), the proxy, HAProxy and no policy
      out.printf("%nstreaming, %d MB each, %d rounds interleaved, MB/s%n", megabytes, rounds);
      Map<String, InetSocketAddress> streams = new LinkedHashMap<>();
      streams.put("no policy", upstream);
      streams.put("firewall, an allowed flow", new InetSocketAddress(serverIp, REUSED));
      streams.put("PEP proxy (its reused grant)", proxy.addresses().get(2));
      if (haproxy != null) {
        streams.put("HAProxy", haproxy.address());
      }
      Map<String, Double> mbs = new LinkedHashMap<>();
      for (int r = 0; r < rounds; r++) {
        for (Map.Entry<String, InetSocketAddress> e : streams.entrySet()) {
          double m = in(client, () -> stream(e.getValue(), megabytes)).get();
          mbs.merge(e.getKey(), m / rounds, Double::sum);
        }
      }
      double open0 = mbs.get("no policy");
      for (Map.Entry<String, Double> e : mbs.entrySet()) {
        out.printf("  %-48s %10.0f %8.2fx%n", e.getKey(), e.getValue(), e.getValue() / open0);
      }
      out.printf(
          "  firewall over no policy: %.2fx (aim: 0.97x)%n",
          mbs.get("firewall, an allowed flow") / open0);

      // revocation: flows established on a grant of their own (from an address of their own, so
      // that the flows the cells above left on alice's main grant are not in it), ended by one
      // policy change that allows alice from her main address only
      out.printf(
          "%n%d established flows on one grant, then a policy change that ends it...%n", flows);
      out.flush();
      String revoked = prefix(client) + 199;
      lab.exec(client, "ip", "addr", "add", revoked + "/24", "dev", client.link());
      Selector selector = in(client, Selector::open).get();
      List<SocketChannel> channels =
          in(
                  client,
                  () -> {
                    List<SocketChannel> l = new ArrayList<>();
                    for (int i = 0; i < flows; i++) {
                      SocketChannel c = SocketChannel.open();
                      c.bind(new InetSocketAddress(revoked, 0));
                      c.connect(new InetSocketAddress(server.outer(), REUSED));
                      c.write(ByteBuffer.wrap(new byte[] {1}));
                      ByteBuffer one = ByteBuffer.allocate(1);
                      while (one.hasRemaining() && c.read(one) >= 0) {
                        // the echo of the byte: the flow carries data
                      }
                      c.configureBlocking(false);
                      c.register(selector, SelectionKey.OP_READ);
                      l.add(c);
                    }
                    return l;
                  })
              .get();
      DurableFiles.write(
          dir.resolve("rules.xml"),
          POLICY
              .replace(
                  "service=\"reused\"/>",
                  "service=\"reused\" source=\"" + clientIp.getHostAddress() + "/32\"/>")
              .getBytes(StandardCharsets.UTF_8));
      firstRemove.set(0);
      long t0 = System.nanoTime();
      pdp.reload(0xC0A5);
      long[] endedAt = endings(selector, channels, TimeUnit.SECONDS.toNanos(30));
      long lastAt = 0;
      int ended = 0;
      for (long at : endedAt) {
        if (at != 0) {
          ended++;
          lastAt = Math.max(lastAt, at);
        }
      }
      long dec = firstRemove.get();
      out.printf(
          "  %d of %d ended; the last %.1f ms after the revoking DEC reached the PEP (aim: 20 ms),"
              + " %.1f ms after the policy reload was asked%n",
          ended, flows, dec == 0 ? Double.NaN : (lastAt - dec) / 1e6, (lastAt - t0) / 1e6);
      for (SocketChannel c : channels) {
        c.close();
      }
      selector.close();
      out.flush();
      if (held > 0) {
        // alice allowed again, after the policy change that ended the flows above
        DurableFiles.write(dir.resolve("rules.xml"), POLICY.getBytes(StandardCharsets.UTF_8));
        pdp.reload(0xC0A5);
        hold(lab, client, serverIp, firewall, out);
      }
      return ended == flows ? Cli.OK : Cli.FAILED;
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        try {
          open.get(i).close();
        } catch (Exception e) {
          // the lab goes anyway
        }
      }
      Scratch.delete(dir);
    }
  }

  /**
   * The client's addresses beside its own, all alice: 10.x.y.199 for the revoked flows, .200 and on
   * for the held ones.
   */
  static boolean held(InetAddress a) {
    int last = a.getAddress()[3] & 0xff;
    return last >= 199 && last < 250;
  }

  /** The first three parts of {@code side}'s address, with the dot. */
  static String prefix(NetworkLab.Side side) {
    return side.outer().substring(0, side.outer().lastIndexOf('.') + 1);
  }

  /**
   * Makes {@code held} allowed flows on the reused grant (connections from ports of their own on as
   * many client addresses as it takes, each closed with a reset: the flow's element stays for its
   * validity) and reports the memory each costs: the kernel's slab (the set's elements and the
   * flows' conntrack entries, as a live flow has one: the closed connections' entries, in CLOSE for
   * 10 s, were still all there 12 s later here, not yet reaped) and the firewall's heap.
   */
  private void hold(
      NetworkLab lab,
      NetworkLab.Side client,
      Inet4Address serverIp,
      HostFirewall firewall,
      PrintWriter out)
      throws Exception {
    out.printf("%n%,d allowed flows held...%n", held);
    out.flush();
    String prefix = prefix(client);
    int perAddress = 50_000;
    // counted by what only grows: the flows held also fall as the earlier cells' flows expire
    long before = admitted(firewall);
    System.gc();
    long heap0 = usedHeap();
    long slab0 = slabKilobytes();
    Map<String, Long> caches0 = slabCaches();
    List<CompletableFuture<Integer>> makers = new ArrayList<>();
    for (int i = 0; (long) i * perAddress < held; i++) {
      String from = prefix + (200 + i);
      lab.exec(client, "ip", "addr", "add", from + "/24", "dev", client.link());
      int n = Math.min(perAddress, held - i * perAddress);
      makers.add(
          in(
              client,
              () -> {
                for (int j = 0; j < n; j++) {
                  try (Socket s = new Socket()) {
                    s.setSoLinger(true, 0); // a reset: no TIME_WAIT
                    s.bind(new InetSocketAddress(from, 10_000 + j));
                    s.connect(new InetSocketAddress(serverIp, REUSED), 5_000);
                  }
                }
                return n;
              }));
    }
    long t0 = System.nanoTime();
    for (CompletableFuture<Integer> m : makers) {
      m.get(30, TimeUnit.MINUTES);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    firewall.allowedFlows(); // once the firewall has heard of every flow the kernel admitted
    long made = admitted(firewall) - before;
    // the sockets' own memory goes with them; the connections' conntrack entries stay a while
    Thread.sleep(12_000);
    System.gc();
    long heap = usedHeap() - heap0;
    long slab = (slabKilobytes() - slab0) * 1024;
    out.printf(
        "  %,d allowed flows made in %.1f s (%,d held in the set in all); memory per flow: kernel"
            + " slab %d bytes, firewall heap %d bytes%n",
        made,
        seconds,
        firewall.counters().flows.get(),
        slab / Math.max(1, made),
        heap / Math.max(1, made));
    // where the slab went: the caches that grew most, in bytes per flow
    Map<String, Long> caches = slabCaches();
    caches.replaceAll((name, bytes) -> bytes - caches0.getOrDefault(name, 0L));
    out.printf(
        "  the slab caches that grew most, bytes per flow: %s%n",
        caches.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .limit(5)
            .map(e -> e.getKey() + " " + e.getValue() / Math.max(1, made))
            .collect(java.util.stream.Collectors.joining(", ")));
    out.flush();
  }

  /**
   * The bytes each slab cache holds ({@code num_objs} x {@code objsize} of /proc/slabinfo); empty
   * where it cannot be read.
   */
  static Map<String, Long> slabCaches() {
    Map<String, Long> out = new java.util.HashMap<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/slabinfo"))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && !line.startsWith("#") && !line.startsWith("slabinfo")) {
          out.put(f[0], Long.parseLong(f[2]) * Long.parseLong(f[3]));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not root, or another format: the total above stands alone
    }
    return out;
  }

  /** Flows the firewall has let in so far, by a decision or on a grant. */
  static long admitted(HostFirewall firewall) {
    return firewall.counters().allowed.get() + firewall.counters().allowedOnGrant.get();
  }

  static long usedHeap() {
    java.lang.management.MemoryUsage u =
        java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return u.getUsed();
  }

  /** The kernel's slab memory ({@code Slab} of /proc/meminfo), in kB. */
  static long slabKilobytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("Slab:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  static long crr(InetSocketAddress to) throws IOException {
    long t0 = System.nanoTime();
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.connect(to, 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write(1);
      if (s.getInputStream().read() < 0) {
        throw new IOException(to + ": no answer");
      }
    }
    return System.nanoTime() - t0;
  }

  static List<Long> crrs(InetSocketAddress to, int n) throws IOException {
    List<Long> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(crr(to));
    }
    return l;
  }

  /** Whether a connection to {@code a} is accepted now. */
  static boolean connects(InetSocketAddress a) {
    try (Socket s = new Socket()) {
      s.connect(a, 200);
      return true;
    } catch (IOException notYet) {
      return false;
    }
  }

  /** Streams {@code mb} megabytes to the echo and reads them back: MB/s one way. */
  static double stream(InetSocketAddress to, int mb) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(to, 5_000);
      s.setSoTimeout(10_000);
      long total = (long) mb << 20;
      CompletableFuture<Long> read = new CompletableFuture<>();
      // a thread of its own: blocking reads never on the common pool (one thread on 2 cores)
      Threads.start(
          "bench-stream-read",
          () -> {
            try {
              InputStream in = s.getInputStream();
              byte[] b = new byte[1 << 16];
              long got = 0;
              while (got < total) {
                int n = in.read(b);
                if (n < 0) {
                  break;
                }
                got += n;
              }
              read.complete(got);
            } catch (IOException e) {
              read.completeExceptionally(e);
            }
          });
      long t0 = System.nanoTime();
      OutputStream o = s.getOutputStream();
      byte[] chunk = new byte[1 << 16];
      for (long sent = 0; sent < total; sent += chunk.length) {
        o.write(chunk);
      }
      long got = read.get(60, TimeUnit.SECONDS);
      double seconds = (System.nanoTime() - t0) / 1e9;
      return got / 1e6 / seconds;
    }
  }

  /** When each channel ended (nanoTime; 0: not within {@code wait}). */
  static long[] endings(Selector selector, List<SocketChannel> channels, long wait)
      throws IOException {
    long[] at = new long[channels.size()];
    Map<SocketChannel, Integer> index = new java.util.HashMap<>();
    for (int i = 0; i < channels.size(); i++) {
      index.put(channels.get(i), i);
    }
    int left = channels.size();
    long deadline = System.nanoTime() + wait;
    ByteBuffer b = ByteBuffer.allocate(64);
    while (left > 0 && System.nanoTime() < deadline) {
      selector.select(100);
      for (SelectionKey k : selector.selectedKeys()) {
        SocketChannel c = (SocketChannel) k.channel();
        boolean done;
        try {
          b.clear();
          done = c.read(b) < 0;
        } catch (IOException reset) {
          done = true;
        }
        if (done) {
          at[index.get(c)] = System.nanoTime();
          k.cancel();
          left--;
        }
      }
      selector.selectedKeys().clear();
    }
    return at;
  }

  static void enter(NetworkLab.Side side) throws IOException {
    NetworkNamespaces.enter(Path.of("/run/netns", side.namespace()));
  }

  /** Runs {@code task} on a new thread in {@code side}'s namespace. */
  static <T> CompletableFuture<T> in(NetworkLab.Side side, Callable<T> task) {
    CompletableFuture<T> f = new CompletableFuture<>();
    Threads.start(
        "bench-" + side.namespace(),
        () -> {
          try {
            enter(side);
            f.complete(task.call());
          } catch (Throwable e) {
            f.completeExceptionally(e);
          }
        });
    return f;
  }
}
