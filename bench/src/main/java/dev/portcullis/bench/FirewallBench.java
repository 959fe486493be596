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
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static final int PER_DECISION = 7000; // "per": a decision each
  static final int REUSED = 7001; // "reused": alice's grant, valid for an hour
  static final int OPEN = 7002; // no policy
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
      PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
      open.add(pdp);
      HostFirewall.Removals removals = new HostFirewall.Removals();
      PepClient pep =
          PepClient.builder()
              .pdp(pdp.address())
              .pepId("bench-host")
              .clientType(0xC0A5)
              .listener(removals)
              .build();
      open.add(pep);
      pep.open().get(10, TimeUnit.SECONDS);
      Inet4Address serverIp = (Inet4Address) InetAddress.getByName(server.outer());
      InetAddress clientIp = InetAddress.getByName(client.outer());
      List<ServerSocket> listening = new ArrayList<>();
      for (int port : new int[] {PER_DECISION, REUSED, OPEN}) {
        ServerSocket s = in(server, () -> new ServerSocket(port, 4096, serverIp)).get();
        listening.add(s);
        open.add(s);
        Threads.start("bench-service-" + port, () -> serve(s));
      }
      HostFirewall firewall =
          HostFirewall.start(
              new HostFirewall.Settings(
                  "bench",
                  11,
                  List.of(
                      new HostFirewall.Service("per", serverIp, PER_DECISION, AccessMode.READ),
                      new HostFirewall.Service("reused", serverIp, REUSED, AccessMode.READ)),
                  a -> a.equals(clientIp) ? "alice" : null,
                  Duration.ofMinutes(5),
                  1 << 20,
                  false,
                  HostFirewall.DEFAULT_MARK),
              pep,
              removals,
              null,
              () -> enter(server));
      open.add(firewall);
      out.printf("measuring: %d connections per cell in %d rounds...%n", connects, rounds);
      out.flush();
      Map<String, List<Long>> crr = new LinkedHashMap<>();
      crr.put("no policy", new ArrayList<>());
      crr.put("firewall, a decision each", new ArrayList<>());
      crr.put("firewall, on a reused grant", new ArrayList<>());
      crr.put("the PDP's decision round trip (no connection)", new ArrayList<>());
      int[] ports = {OPEN, PER_DECISION, REUSED};
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
        for (int port : ports) {
          in(client, () -> crr(server.outer(), port)).get();
        }
      }
      for (int r = 0; r < rounds; r++) {
        int k = 0;
        for (List<Long> into : crr.values()) {
          int port = k < 3 ? ports[k] : -1;
          k++;
          if (port < 0) {
            for (int i = 0; i < per; i++) {
              long t0 = System.nanoTime();
              pep.request("bench-ask", ctx, ask).get(10, TimeUnit.SECONDS);
              into.add(System.nanoTime() - t0);
            }
            continue;
          }
          into.addAll(in(client, () -> crrs(server.outer(), port, per)).get());
        }
      }
      out.printf(
          "%nconnect + 1-byte request + answer (TCP_CRR), %d each, %d rounds interleaved%n",
          per * rounds, rounds);
      FleetBench.micros(out, "cell", crr, "no policy");
      double base = Quantiles.at(FleetBench.array(crr.get("no policy")), 0.5);
      double decision = Quantiles.at(FleetBench.array(crr.get("firewall, a decision each")), 0.5);
      double pdpRtt =
          Quantiles.at(
              FleetBench.array(crr.get("the PDP's decision round trip (no connection)")), 0.5);
      out.printf(
          "  a decision each over no policy: +%.1f us p50, of which the PDP's round trip %.1f us:"
              + " %.1f us the firewall's own (aim: 100 us)%n",
          (decision - base) / 1e3, pdpRtt / 1e3, (decision - base - pdpRtt) / 1e3);

      // streams: through an allowed flow (the reused grant) and through no policy
      out.printf("%nstreaming, %d MB each, %d rounds interleaved, MB/s%n", megabytes, rounds);
      double[] mbs = new double[2];
      int[] streamPorts = {OPEN, REUSED};
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          int port = streamPorts[k];
          mbs[k] += in(client, () -> stream(server.outer(), port, megabytes)).get() / rounds;
        }
      }
      out.printf("  %-48s %10.0f%n", "no policy", mbs[0]);
      out.printf("  %-48s %10.0f%n", "firewall, an allowed flow", mbs[1]);
      out.printf("  %-48s %9.2fx (aim: 0.97x)%n", "ratio", mbs[1] / mbs[0]);

      // revocation: flows established on the reused grant, ended by one policy change
      out.printf("%n%d established flows, then a policy change that allows none...%n", flows);
      out.flush();
      Selector selector = in(client, Selector::open).get();
      List<SocketChannel> channels =
          in(
                  client,
                  () -> {
                    List<SocketChannel> l = new ArrayList<>();
                    for (int i = 0; i < flows; i++) {
                      SocketChannel c =
                          SocketChannel.open(new InetSocketAddress(server.outer(), REUSED));
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
      DurableFiles.write(dir.resolve("rules.xml"), NOBODY.getBytes(StandardCharsets.UTF_8));
      long t0 = System.nanoTime();
      pdp.reload(0xC0A5);
      long[] endedAt = endings(selector, channels, TimeUnit.SECONDS.toNanos(30));
      long last = 0;
      int ended = 0;
      for (long at : endedAt) {
        if (at != 0) {
          ended++;
          last = Math.max(last, at - t0);
        }
      }
      out.printf(
          "  %d of %d ended; the last %.1f ms after the policy reload was asked (its DEC is sent"
              + " within it; aim: 20 ms after the DEC)%n",
          ended, flows, last / 1e6);
      for (SocketChannel c : channels) {
        c.close();
      }
      selector.close();
      out.flush();
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

  /** Each connection: its bytes back until it ends. */
  static void serve(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket c = s.accept();
        Threads.start("bench-conn", () -> echo(c));
      } catch (IOException e) {
        return;
      }
    }
  }

  /** One connection's bytes back until it ends (or the firewall cuts it). */
  static void echo(Socket c) {
    try (c;
        InputStream in = c.getInputStream();
        OutputStream out = c.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException ended) {
      // by the client, or cut by the firewall: nothing to do
    }
  }

  static long crr(String host, int port) throws IOException {
    long t0 = System.nanoTime();
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(host, port), 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write(1);
      if (s.getInputStream().read() < 0) {
        throw new IOException(port + ": no answer");
      }
    }
    return System.nanoTime() - t0;
  }

  static List<Long> crrs(String host, int port, int n) throws IOException {
    List<Long> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(crr(host, port));
    }
    return l;
  }

  /** Streams {@code mb} megabytes to the echo and reads them back: MB/s one way. */
  static double stream(String host, int port, int mb) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 5_000);
      s.setSoTimeout(10_000);
      long total = (long) mb << 20;
      CompletableFuture<Long> read =
          CompletableFuture.supplyAsync(
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
                  return got;
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
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
