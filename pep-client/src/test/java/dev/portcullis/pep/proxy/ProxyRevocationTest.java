package dev.portcullis.pep.proxy;

import static dev.portcullis.pep.proxy.PepProxyTest.closed;
import static dev.portcullis.pep.proxy.PepProxyTest.roundTrip;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.support.ManualTimebase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The revocation matrix, proxy side (docs/security.md): alice's and bob's connections open side by
 * side; however alice's access is revoked — a Remove pushed by the PDP, the Remove answering a
 * request sent again after the PDP came back with another policy, the Remove from the PDP the proxy
 * fails over to, a LOGOUT, her cached grant's expiry — exactly alice's connections are cut and her
 * new ones refused, also while no PDP is reachable, and bob's go on. The library's side of the same
 * matrix is {@code RevocationTest}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ProxyRevocationTest {
  /** Both may use echo, with grants valid for an hour (alice) and two (bob) without a PDP. */
  static final String BOTH =
      "<rules><rule id=\"alice\" decision=\"install\"><match subject=\"alice\" service=\"echo\"/>"
          + "<grant valid-for=\"PT1H\"/></rule>"
          + "<rule id=\"bob\" decision=\"install\"><match subject=\"bob\" service=\"echo\"/>"
          + "<grant valid-for=\"PT2H\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule allows this\"/></rules>";

  static final String BOB_ONLY = BOTH.replace("subject=\"alice\"", "subject=\"nobody\"");

  @TempDir Path dir;
  final ManualTimebase time = new ManualTimebase(); // the proxy's time: grants expire by it
  final List<AutoCloseable> open = new ArrayList<>();
  PepProxyTest.Echo echo;
  PepProxy proxy;
  InetSocketAddress listener;

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /** A rules PDP on 127.0.0.1:{@code port} (0: a free one), deciding 0xC0A5 with {@code policy}. */
  PdpServer pdp(String name, int port, String policy) throws Exception {
    Files.writeString(dir.resolve(name + "-rules.xml"), policy);
    Files.writeString(
        dir.resolve(name + ".xml"),
        "<pdp><listen address=\"127.0.0.1\" port=\""
            + port
            + "\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\""
            + name
            + "-rules.xml\"/></pdp>");
    PdpServer p = PdpServer.start(PdpConfig.load(dir.resolve(name + ".xml")), 1);
    open.add(p);
    return p;
  }

  /**
   * The proxy in front of an echo server: clients from 127.0.0.2 are bob, the rest of 127/8 alice;
   * its PEP has {@code pdps} in order (a fleet's members), with the client type {@code type}.
   */
  void proxy(String type, String service, String access, PdpServer... pdps) throws Exception {
    echo = new PepProxyTest.Echo();
    open.add(echo);
    proxyTo(echo.address(), type, service, access, pdps);
  }

  /** The same proxy in front of {@code upstream}. */
  void proxyTo(
      InetSocketAddress upstream, String type, String service, String access, PdpServer... pdps)
      throws Exception {
    StringBuilder pep = new StringBuilder("<pep id=\"proxy-1\" client-type=\"" + type + "\">");
    for (PdpServer p : pdps) {
      pep.append("<pdp address=\"127.0.0.1\" port=\"").append(p.address().getPort()).append("\"/>");
    }
    Files.writeString(dir.resolve("pep.xml"), pep + "</pep>");
    Files.writeString(
        dir.resolve("pep-proxy.xml"),
        "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\" upstream=\""
            + "127.0.0.1:"
            + upstream.getPort()
            + "\" service=\""
            + service
            + "\""
            + access
            + "><subject source=\"127.0.0.2/32\" name=\"bob\"/>"
            + "<subject source=\"127.0.0.0/8\" name=\"alice\"/></listener></pep-proxy>");
    ProxyConfig cfg = ProxyConfig.load(dir.resolve("pep-proxy.xml"));
    proxy =
        new PepProxy(
            cfg,
            PepConfig.load(cfg.pep())
                .clientBuilder()
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200)),
            1,
            AuditLog.NONE,
            time);
    open.add(proxy);
    listener = proxy.addresses().get(0);
    awaitPdp(true);
  }

  void awaitPdp(boolean open) {
    await().atMost(Duration.ofSeconds(10)).until(() -> proxy.pep().isOpen() == open);
  }

  /** A connection through the proxy from {@code who}'s address, with one round trip done. */
  Socket through(String who) throws IOException {
    Socket s = connect(who);
    assertEquals("hi " + who, roundTrip(s, "hi " + who), who + "'s connection is relayed");
    return s;
  }

  Socket connect(String who) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(who.equals("bob") ? "127.0.0.2" : "127.0.0.1", 0));
    s.connect(listener, 5_000);
    s.setSoTimeout(5_000);
    open.add(s);
    return s;
  }

  /** Alice's connections are cut, bob's go on relaying. */
  static void onlyAlicesCut(List<Socket> alices, Socket bobs) throws IOException {
    for (Socket a : alices) {
      assertTrue(closed(a), "alice's connection is cut");
    }
    assertEquals("still", roundTrip(bobs, "still"), "bob's connection goes on");
  }

  /** {@code n} new connections of {@code who}: how many were relayed. */
  int relayed(String who, int n) throws IOException {
    int ok = 0;
    for (int i = 0; i < n; i++) {
      Socket s = connect(who);
      try {
        ok += roundTrip(s, "x").equals("x") ? 1 : 0;
      } catch (IOException e) {
        // refused: closed or reset
      }
      s.close();
    }
    return ok;
  }

  /** Without a PDP: alice's revoked grant admits none of hers; bob's still admits his. */
  void withoutPdpAliceRefusedBobCached(PdpServer... pdps) throws Exception {
    for (PdpServer p : pdps) {
      p.close();
    }
    awaitPdp(false);
    assertEquals(0, relayed("alice", 5), "alice's grants ended with her revocation");
    assertEquals(2, relayed("bob", 2), "bob's grant still holds");
  }

  @Test
  void anUnsolicitedRemoveCutsAlicesConnectionsAndEndsHerGrants() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    proxy("0xC0A5", "echo", "", a);
    List<Socket> alices = List.of(through("alice"), through("alice"));
    Socket bobs = through("bob");
    Files.writeString(dir.resolve("a-rules.xml"), BOB_ONLY);
    a.reload(0xC0A5);
    onlyAlicesCut(alices, bobs);
    assertEquals(0, relayed("alice", 2), "new ones are denied");
    withoutPdpAliceRefusedBobCached(a);
  }

  /** Writes 4 MiB into {@code s} from a thread of its own, more than the path can hold. */
  static void writeMoreThanThePathHolds(Socket s) {
    Thread writer =
        new Thread(
            () -> {
              byte[] chunk = new byte[64 * 1024];
              try {
                for (int i = 0; i < 64; i++) {
                  s.getOutputStream().write(chunk);
                }
              } catch (IOException e) {
                // cut
              }
            });
    writer.setDaemon(true);
    writer.start();
  }

  /** The bytes {@code s} reads until its end (a FIN or a reset). */
  static long bytesToTheEnd(Socket s) throws IOException {
    long n = 0;
    byte[] b = new byte[8192];
    try {
      for (int r; (r = s.getInputStream().read(b)) > 0; ) {
        n += r;
      }
    } catch (SocketException e) {
      // reset: the end
    }
    return n;
  }

  /**
   * A cut ends the flow at once, including the bytes the proxy had relayed into the kernel's send
   * queue towards a client that reads slowly: alice stops reading while the echo's answers pile up,
   * her access is revoked, and all she can then read is what her own receive buffer held before the
   * cut. With a plain close the proxy's socket went on sending its queue (tens of kilobytes here)
   * ahead of the FIN, after the revocation.
   */
  @Test
  void aCutConnectionDeliversNothingQueuedAfterTheRevocation() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    proxy("0xC0A5", "echo", "", a);
    Socket s = new Socket();
    s.setReceiveBufferSize(4096); // before connecting: the window it advertises
    s.bind(new InetSocketAddress("127.0.0.1", 0));
    s.connect(listener, 5_000);
    s.setSoTimeout(5_000);
    open.add(s);
    assertEquals("hi", roundTrip(s, "hi"), "relayed");
    int held = s.getReceiveBufferSize();
    writeMoreThanThePathHolds(s);
    // the echo's answers fill every buffer back to alice, who does not read: the proxy holds some
    await().atMost(Duration.ofSeconds(10)).until(() -> proxy.buffered() > 0);
    Files.writeString(dir.resolve("a-rules.xml"), BOB_ONLY);
    a.reload(0xC0A5);
    await().atMost(Duration.ofSeconds(10)).until(() -> proxy.counters().revoked.get() == 1);
    // the cut has run on the proxy's loop: its end of alice's connection is gone (reset)
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !TcpTable.established(listener.getPort(), s.getLocalPort()));
    long after = bytesToTheEnd(s);
    // Linux doubles SO_RCVBUF for its bookkeeping (socket(7)), so her queue holds up to twice it;
    // a plain close delivered ~3 MB here (the proxy's send buffer, grown by autotuning)
    assertTrue(
        after <= 2L * held,
        after
            + " bytes read after the cut, more than the "
            + 2 * held
            + " her receive buffer held");
  }

  /**
   * The other way: the service gets none of alice's bytes after the cut. She writes more than the
   * path holds to a service that does not read; her access is revoked; then the service reads, and
   * gets at most what its own receive buffer held before the cut. The proxy closed the service's
   * side gracefully before, flushing what alice had sent, and its socket's queue, after the
   * revocation.
   */
  @Test
  void aCutConnectionDeliversNothingQueuedToTheServiceAfterTheRevocation() throws Exception {
    try (ServerSocket service = new ServerSocket()) {
      service.setReceiveBufferSize(4096); // inherited by the accepted socket: its window
      service.bind(new InetSocketAddress("127.0.0.1", 0));
      PdpServer a = pdp("a", 0, BOTH);
      proxyTo((InetSocketAddress) service.getLocalSocketAddress(), "0xC0A5", "echo", "", a);
      Socket s = connect("alice");
      writeMoreThanThePathHolds(s);
      Socket up = service.accept();
      open.add(up);
      up.setSoTimeout(5_000);
      int held = up.getReceiveBufferSize();
      // alice's bytes fill every buffer up to the service, which does not read: the proxy holds
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.buffered() > 0);
      Files.writeString(dir.resolve("a-rules.xml"), BOB_ONLY);
      a.reload(0xC0A5);
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.counters().revoked.get() == 1);
      // the cut has run on the proxy's loop: its end of the service's connection is gone (reset)
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !TcpTable.established(up.getPort(), up.getLocalPort()));
      long after = bytesToTheEnd(up);
      assertTrue(
          after <= 2L * held,
          after + " bytes reached the service after the cut, more than its receive buffer held");
    }
  }

  /**
   * The PDP dies, alice's rule goes, the PDP comes back: the proxy's PEP sends its installed
   * requests again and the PDP answers Remove for alice's. They used to go on relaying.
   */
  @Test
  void aRemoveAnsweringARequestSentAgainAfterAReconnectCutsAlicesConnections() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    int port = a.address().getPort();
    proxy("0xC0A5", "echo", "", a);
    List<Socket> alices = List.of(through("alice"), through("alice"));
    Socket bobs = through("bob");
    a.close();
    awaitPdp(false);
    PdpServer back = pdp("a", port, BOB_ONLY);
    onlyAlicesCut(alices, bobs);
    withoutPdpAliceRefusedBobCached(back);
  }

  @Test
  void aRemoveFromThePdpTheProxyFailsOverToCutsAlicesConnections() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    PdpServer b = pdp("b", 0, BOB_ONLY);
    proxy("0xC0A5", "echo", "", a, b);
    List<Socket> alices = List.of(through("alice"), through("alice"));
    Socket bobs = through("bob");
    a.close();
    onlyAlicesCut(alices, bobs);
    withoutPdpAliceRefusedBobCached(b);
  }

  @Test
  void aLogoutCutsExactlyTheConnectionsItsSessionAllowed() throws Exception {
    Files.copy(Path.of("../config/policy-mls.xml"), dir.resolve("policy-mls.xml"));
    Files.writeString(
        dir.resolve("mls.xml"),
        "<pdp><state store=\"embedded\"/><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/></pdp>");
    PdpServer mls = PdpServer.start(PdpConfig.load(dir.resolve("mls.xml")), 1);
    open.add(mls);
    proxy("0xC0A6", "intel-db", " access=\"read\"", mls);
    PepClient terminal =
        PepClient.builder().pdp(mls.address()).pepId("tpe-1").clientType(0xC0A6).build();
    open.add(terminal);
    terminal.open().get(10, TimeUnit.SECONDS);
    Context ctx = new Context(Context.R_INCOMING, 0);
    for (String who : List.of("alice", "bob")) {
      assertTrue(
          terminal
              .request(who, ctx, AccessRequest.login(who, 2, List.of("NATO")))
              .get(10, TimeUnit.SECONDS)
              .granted());
    }
    List<Socket> alices = List.of(through("alice"), through("alice"));
    Socket bobs = through("bob");
    terminal.request("alice", ctx, AccessRequest.of(AccessOperation.LOGOUT, "alice"));
    onlyAlicesCut(alices, bobs);
    assertEquals(0, relayed("alice", 2), "no session: refused");
  }

  @Test
  void anExpiredGrantAdmitsNothingWithoutAPdp() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    proxy("0xC0A5", "echo", "", a);
    through("alice").close();
    through("bob").close();
    a.close();
    awaitPdp(false);
    assertEquals(1, relayed("alice", 1), "alice's hour is not over");
    time.advance(Duration.ofMinutes(61));
    assertEquals(0, relayed("alice", 3), "alice's grant expired after its hour");
    assertEquals(1, relayed("bob", 1), "bob's two hours are not");
    assertEquals(2, proxy.counters().allowedFromCache.get());
  }

  /**
   * A connection admitted on a cached grant while no PDP was reachable is asked for once a PDP
   * accepts again, and cut when that PDP removes it: no connection rests on a grant a PDP revoked.
   */
  @Test
  void aConnectionAdmittedOnACachedGrantIsCutWhenThePdpThatComesBackRemovesIt() throws Exception {
    PdpServer a = pdp("a", 0, BOTH);
    int port = a.address().getPort();
    proxy("0xC0A5", "echo", "", a);
    through("alice").close();
    through("bob").close();
    a.close();
    awaitPdp(false);
    List<Socket> alices = List.of(through("alice"));
    Socket bobs = through("bob");
    pdp("a", port, BOB_ONLY);
    onlyAlicesCut(alices, bobs);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                proxy.pep().installed().get().keySet().stream()
                        .filter(h -> h.contains("cached"))
                        .collect(Collectors.toList())
                        .size()
                    == 1); // bob's cached connection now has its request state
  }
}
