package dev.portcullis.bench.cost;

import dev.portcullis.nativecrypto.NetworkNamespaces;
import dev.portcullis.support.Threads;
import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.TunnelConnection;
import dev.portcullis.tunnel.lab.NetworkLab;
import dev.portcullis.tunnel.vici.ViciClient;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The network mode of the cost-of-security harness ({@code --network lab}): the tunnels issue's lab
 * (two namespaces joined by a veth, a charon in each), the PDPs and the raw responder in side b,
 * the PEPs and the harness in side a, in one JVM — the harness's thread and every thread it starts
 * live in a's namespace, the servers are started from a thread in b's ({@link NetworkNamespaces}),
 * and a socket stays in the namespace it was made in. Every layer crosses the veth; the IPsec
 * layers cross it inside ESP, between inner addresses on each side's loopback:
 *
 * <ul>
 *   <li>{@link Route#VETH}: outer addresses, no tunnel;
 *   <li>{@link Route#ESP_GCM}: 10.1.0.1 to 10.2.0.1, a CHILD_SA with AES-GCM, up before measuring;
 *   <li>{@link Route#ESP_NULL}: 10.1.0.2 to 10.2.0.2, ESP-NULL (integrity only), up likewise;
 *   <li>{@link Route#ESP_IKE}: 10.1.0.3 to 10.2.0.3, AES-GCM negotiated for each connection: the
 *       COPS over TLS/IPsec paper's connect included IKE. A kernel would do it with a trap policy
 *       (the first packet triggers IKE); userspace ESP has no such trigger (libipsec drops the
 *       packet: "could not find an outbound IPsec SA"), so {@link #negotiate} asks charon to
 *       initiate and the connection follows, and {@link #down} takes the SA down between trials.
 * </ul>
 */
final class NetworkPaths implements AutoCloseable {
  /** Which way a layer's packets go. */
  enum Route {
    VETH("192.0.2.1", "192.0.2.2", null),
    ESP_GCM("10.1.0.1", "10.2.0.1", ProtectionObjective.CONFIDENTIALITY),
    ESP_NULL("10.1.0.2", "10.2.0.2", ProtectionObjective.INTEGRITY),
    ESP_IKE("10.1.0.3", "10.2.0.3", ProtectionObjective.CONFIDENTIALITY);

    final String client;
    final String server;
    final ProtectionObjective objective;

    Route(String client, String server, ProtectionObjective objective) {
      this.client = client;
      this.server = server;
      this.objective = objective;
    }

    String tunnel() {
      return "cost-" + name().toLowerCase(java.util.Locale.ROOT);
    }

    InetAddress serverAddress() throws IOException {
      return InetAddress.getByName(server);
    }
  }

  /** Where the PDPs listen, one address per route (their certificate names them all). */
  static List<String> servers() {
    return Arrays.stream(Route.values()).map(r -> r.server).toList();
  }

  private final NetworkLab lab;
  private final ViciClient atA;
  private final ViciClient atB;
  private final ExecutorService inB;

  private NetworkPaths(NetworkLab lab, ViciClient atA, ViciClient atB, ExecutorService inB) {
    this.lab = lab;
    this.atA = atA;
    this.atB = atB;
    this.inB = inB;
  }

  /** Why the mode cannot run here, in one line, or null. */
  static String unavailable() {
    String why = NetworkLab.unavailable();
    return why != null ? why : NetworkNamespaces.unavailable();
  }

  /**
   * Makes the lab and its tunnels, then moves the calling thread into side a (for good: call it
   * from the harness's own thread, before it starts any other).
   */
  static NetworkPaths open(Path dir) throws Exception {
    NetworkLab lab = NetworkLab.create(dir);
    try {
      lab.addInnerAddresses(lab.a(), List.of("10.1.0.2/32", "10.1.0.3/32"));
      lab.addInnerAddresses(lab.b(), List.of("10.2.0.2/32", "10.2.0.3/32"));
      ViciClient a = ViciClient.connect(lab.startCharon(lab.a()), Duration.ofSeconds(30));
      ViciClient b = ViciClient.connect(lab.startCharon(lab.b()), Duration.ofSeconds(30));
      for (Route r : List.of(Route.ESP_GCM, Route.ESP_NULL, Route.ESP_IKE)) {
        TunnelConnection t =
            lab.loadTunnel(
                a,
                b,
                r.tunnel(),
                r.client + "/32",
                r.server + "/32",
                r.objective,
                Duration.ofHours(4));
        if (r != Route.ESP_IKE) {
          a.await(a.initiate(TunnelConnection.CHILD, t.name(), Duration.ofSeconds(10)));
        }
      }
      ExecutorService inB = Executors.newSingleThreadExecutor(Threads.daemon("lab-side-b"));
      Path nsB = Path.of("/run/netns", lab.b().namespace());
      inB.submit(
              () -> {
                NetworkNamespaces.enter(nsB);
                return null;
              })
          .get();
      NetworkNamespaces.enter(Path.of("/run/netns", lab.a().namespace()));
      return new NetworkPaths(lab, a, b, inB);
    } catch (Exception | Error e) {
      lab.close();
      throw e;
    }
  }

  /** Runs {@code c} on the thread in side b (servers are started there). */
  <T> T inB(Callable<T> c) throws Exception {
    try {
      return inB.submit(c).get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable t = e.getCause();
      if (t instanceof Exception x) {
        throw x;
      }
      throw e;
    }
  }

  /** Takes the IKE route's SA down, at both ends, so that the next connection negotiates. */
  void down() throws Exception {
    String name = Route.ESP_IKE.tunnel();
    if (!atA.listSas(name).isEmpty()) {
      atA.await(atA.terminateIke(name, Duration.ofSeconds(5)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!atB.listSas(name).isEmpty() && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // the responder hears of the delete a round trip later
    }
  }

  /** Negotiates the IKE route's SA (IKE_SA_INIT, IKE_AUTH, PSK): back once the CHILD_SA is up. */
  void negotiate() throws Exception {
    atA.await(atA.initiate(TunnelConnection.CHILD, Route.ESP_IKE.tunnel(), Duration.ofSeconds(10)));
  }

  /** The raw responder for route {@code p}, in the PDPs' namespace (one per route). */
  RawTcp responder(Route p, Map<Route, RawTcp> made) {
    return made.computeIfAbsent(
        p,
        k -> {
          try {
            return inB(() -> new RawTcp(k.serverAddress()));
          } catch (Exception e) {
            throw new IllegalStateException("raw responder on " + k.server + ": " + e, e);
          }
        });
  }

  /**
   * The network mode's layers: every loopback layer that has no proxy, across the veth (same names,
   * so the base case and the conclusions hold), then the IPsec layers: the raw exchanges, plain
   * COPS and TLS inside ESP with AES-GCM, plain COPS inside ESP-NULL, and plain COPS whose
   * connection makes charon negotiate IKE.
   */
  static List<Layer> acrossTheLab(List<Layer> loopback, List<String> skipped) {
    List<Layer> l = new ArrayList<>();
    Layer raw = null;
    Layer plain = null;
    Layer tls = null;
    for (Layer x : loopback) {
      if (x.route() == Layer.Route.HAPROXY || x.route() == Layer.Route.PEP_PROXY) {
        skipped.add(x.name() + ": the proxy layers run on loopback only");
        continue;
      }
      l.add(x.across(Route.VETH, x.name(), x.description() + "; across the veth"));
      raw = x.route() == Layer.Route.RAW ? x : raw;
      plain = x.name().equals(Report.BASE) ? x : plain;
      tls = tls == null && x.name().startsWith("TLS ") && !x.name().contains("+") ? x : tls;
    }
    String esp = "inside ESP (AES-GCM, userspace), SA up";
    l.add(raw.across(Route.ESP_GCM, "raw TCP in ESP", "the raw exchanges " + esp));
    l.add(plain.across(Route.ESP_GCM, "plain in ESP", "plain COPS " + esp));
    l.add(
        plain.across(
            Route.ESP_NULL,
            "plain in ESP-NULL",
            "plain COPS inside ESP with NULL encryption (integrity only), SA up"));
    if (tls != null) {
      l.add(tls.across(Route.ESP_GCM, tls.name() + " in ESP", tls.description() + ", " + esp));
    }
    l.add(
        plain.across(
            Route.ESP_IKE,
            "plain, IKE per connection",
            "plain COPS inside ESP (AES-GCM) negotiated for each connection: IKE (PSK), then"
                + " the connection, as the paper's IPsec connect"));
    return l;
  }

  /** One line on the path, for the report. */
  String describe() {
    return "network lab: PDP in namespace "
        + lab.b().namespace()
        + ", PEPs in "
        + lab.a().namespace()
        + ", a veth between them; ESP by strongSwan's charon in userspace (kernel-libipsec)";
  }

  @Override
  public void close() {
    inB.shutdownNow();
    atA.close();
    atB.close();
    lab.close();
  }
}
