package dev.portcullis.pep.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.netfilter.NetfilterLab;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.SampleConfigs;
import dev.portcullis.support.Waits;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host firewall in the kernel, end to end (issue 45): a client namespace, a server namespace
 * with an echo service on port 7000 and the firewall's rules, the firewall's threads in the
 * server's namespace, a rules PDP on loopback. A denied SYN gets no SYN-ACK; an allowed flow
 * carries data with nothing but its SYN leaving the kernel; a policy change cuts an established
 * flow at once and nothing more crosses. Root only; one line and skipped elsewhere.
 */
@EnabledIf("labRunsHere")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostFirewallLabTest {
  static final int PORT = 7000;
  static final String ALLOW_ALICE =
      "<rules><rule id=\"alice\" decision=\"install\"><match subject=\"alice\" service=\"demo\"/>"
          + "</rule><default decision=\"remove\" reason=\"no rule\"/></rules>";
  static final String NOBODY = "<rules><default decision=\"remove\" reason=\"closed\"/></rules>";

  @TempDir Path dir;
  NetfilterLab lab;
  PdpServer pdp;
  PepClient pep;
  HostFirewall firewall;
  AuditLog audit;
  ServerSocket echo;
  DatagramSocket udpEcho;
  final AtomicReference<String> subject = new AtomicReference<>("alice");
  final java.util.Set<InetAddress> many = java.util.concurrent.ConcurrentHashMap.newKeySet();
  final List<AutoCloseable> open = new ArrayList<>();
  boolean closeOnPdpLoss = true;
  Duration validity = Duration.ofSeconds(2); // the flows' validity without packets
  int maxFlows = 1 << 18;
  Map<String, HostFirewall.SessionLevel> sessions = Map.of(); // no MLS sessions unless a test says
  String clientType = "0xC0A5"; // the PDP's client type and engine, and the service's name
  String engine = "engine=\"rules\" policy=\"rules.xml\"";
  String service = "demo";

  static boolean labRunsHere() {
    return NetfilterLab.runsHere("HostFirewallLabTest");
  }

  @BeforeEach
  void makeTheLab() throws Exception {
    lab = new NetfilterLab("pcfw", 8);
    open.add(lab);
  }

  /** The PDP, the PEP, the echo service and the firewall, in the lab. */
  void start() throws Exception {
    audit = AuditLog.open(dir.resolve("firewall-audit.jsonl"));
    open.add(audit);
    Files.writeString(dir.resolve("rules.xml"), ALLOW_ALICE);
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/><client-type code=\""
            + clientType
            + "\" "
            + engine
            + "/></pdp>");
    pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
    open.add(pdp);
    HostFirewall.Removals removals = new HostFirewall.Removals();
    pep =
        PepClient.builder()
            .pdp(pdp.address())
            .pepId("host-1")
            .clientType(Integer.decode(clientType))
            .listener(removals)
            .build();
    open.add(pep);
    pep.open().get(10, TimeUnit.SECONDS);
    echo =
        NetfilterLab.in(lab.server, () -> new ServerSocket(PORT, 4096, address(lab.serverIp)))
            .get();
    open.add(echo); // a backlog of 50 held 10,000 quick connections to 4-7 ms each (1.5 s: 4096)
    NetfilterLab.daemon("echo-accept", this::echo);
    udpEcho =
        NetfilterLab.in(lab.server, () -> new DatagramSocket(PORT, address(lab.serverIp))).get();
    open.add(udpEcho);
    NetfilterLab.daemon("udp-echo", this::udpEcho);
    InetAddress client = address(lab.clientIp);
    InetAddress second = address(secondIp());
    firewall =
        HostFirewall.start(
            new HostFirewall.Settings(
                "lab" + (ProcessHandle.current().pid() % 10_000),
                9,
                List.of(
                    new HostFirewall.Service(
                        service, (Inet4Address) address(lab.serverIp), PORT, AccessMode.READ),
                    new HostFirewall.Service(
                        service,
                        (Inet4Address) address(lab.serverIp),
                        PORT,
                        Flow.UDP,
                        AccessMode.READ)),
                a -> {
                  CountDownLatch stall = stallSecond;
                  if (stall != null && a.equals(second)) {
                    stalled.countDown(); // the kernel thread held here until the test lets go
                    awaitQuietly(stall);
                  }
                  return a.equals(client) || a.equals(second) || many.contains(a)
                      ? subject.get()
                      : null;
                },
                validity,
                maxFlows,
                closeOnPdpLoss,
                HostFirewall.DEFAULT_MARK,
                sessions),
            pep,
            removals,
            audit,
            () -> NetfilterLab.enter(lab.server));
    open.add(firewall);
  }

  /** Set: the subject mapping holds the firewall's kernel thread on the second address. */
  volatile CountDownLatch stallSecond;

  final CountDownLatch stalled = new CountDownLatch(1);

  static void awaitQuietly(CountDownLatch l) {
    try {
      l.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static InetAddress address(String ip) throws IOException {
    return InetAddress.getByName(ip);
  }

  /** The PDP allows alice, with a grant her later flows may reuse for an hour. */
  void allowAliceForAnHour() throws Exception {
    Files.writeString(
        dir.resolve("rules.xml"),
        ALLOW_ALICE.replace("service=\"demo\"/>", "service=\"demo\"/><grant valid-for=\"PT1H\"/>"));
    pdp.reload(0xC0A5);
  }

  /** The UDP echo service: each datagram back to its sender. */
  void udpEcho() {
    byte[] b = new byte[1500];
    while (!udpEcho.isClosed()) {
      try {
        DatagramPacket p = new DatagramPacket(b, b.length);
        udpEcho.receive(p);
        udpEcho.send(new DatagramPacket(b, p.getLength(), p.getSocketAddress()));
      } catch (IOException e) {
        return; // closed at the end
      }
    }
  }

  /** A UDP socket in the client's namespace, connected to the service, waiting 2 s per answer. */
  DatagramSocket udpClient() throws Exception {
    DatagramSocket d =
        NetfilterLab.in(
                lab.client,
                () -> {
                  DatagramSocket c = new DatagramSocket(0, address(lab.clientIp));
                  c.connect(new InetSocketAddress(lab.serverIp, PORT));
                  c.setSoTimeout(2_000);
                  return c;
                })
            .get();
    open.add(d);
    return d;
  }

  /** Sends {@code text} and returns the echo, or null when none came within 2 s. */
  static String udpRoundTrip(DatagramSocket d, String text) throws IOException {
    byte[] out = text.getBytes(StandardCharsets.US_ASCII);
    d.send(new DatagramPacket(out, out.length));
    byte[] in = new byte[1500];
    DatagramPacket p = new DatagramPacket(in, in.length);
    try {
      d.receive(p);
    } catch (SocketTimeoutException none) {
      return null;
    }
    return new String(in, 0, p.getLength(), StandardCharsets.US_ASCII);
  }

  /** The echo service: each connection's bytes back until it ends. */
  void echo() {
    while (!echo.isClosed()) {
      try {
        Socket c = echo.accept();
        NetfilterLab.daemon(
            "echo",
            () -> {
              try (c) {
                c.getInputStream().transferTo(c.getOutputStream());
              } catch (IOException e) {
                // ended: by the client, or destroyed by the firewall
              }
            });
      } catch (IOException e) {
        return;
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close(); // the lab last: what runs in it first
    }
  }

  /** The client's second address (not there until {@code lab.addClientAddress} adds it). */
  String secondIp() {
    return lab.clientIp.substring(0, lab.clientIp.lastIndexOf('.')) + ".3";
  }

  /** A connection from the client's namespace, open. */
  CompletableFuture<Socket> connect() {
    return connectFrom(null);
  }

  /** A connection from the client's namespace and {@code ip} (null: its first address), open. */
  CompletableFuture<Socket> connectFrom(String ip) {
    return NetfilterLab.in(
        lab.client,
        () -> {
          Socket s = new Socket();
          if (ip != null) {
            s.bind(new InetSocketAddress(ip, 0));
          }
          s.connect(new InetSocketAddress(lab.serverIp, PORT), 2_000);
          s.setSoTimeout(5_000);
          return s;
        });
  }

  /** Whether {@code s} ends (a reset, or the end of the stream) within its 5 s read timeout. */
  static boolean ended(Socket s) {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException still) {
      return false; // 5 s and the connection still open: not cut
    } catch (IOException reset) {
      return true;
    }
  }

  static String roundTrip(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    return new String(s.getInputStream().readNBytes(text.length()), StandardCharsets.US_ASCII);
  }

  @Test
  void anAllowedFlowCarriesDataAndADeniedSynGetsNoSynAck() throws Exception {
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      for (int i = 0; i < 100; i++) {
        assertEquals("hello " + i, roundTrip(s, "hello " + i));
      }
      assertEquals(1, firewall.allowedFlows());
    }
    subject.set("mallory"); // no rule for her: the PDP says Remove, the SYN is dropped
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
    subject.set(null); // no subject at all: dropped without asking
    e = assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
  }

  /**
   * A second firewall on the same queue fails on the queue before it touches anything: the first
   * one's table and rules, which a second setting up under the same name would have replaced, go on
   * deciding.
   */
  @Test
  void aSecondFirewallOnTheQueueFailsAndLeavesTheFirstAlone() throws Exception {
    start();
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                HostFirewall.start(
                    firewall.settings(),
                    pep,
                    new HostFirewall.Removals(),
                    null,
                    () -> NetfilterLab.enter(lab.server)));
    assertTrue(e.getMessage().contains("queue"), e.getMessage());
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("still", roundTrip(s, "still"));
    }
  }

  /** {@code close-all}: the PDP lost, every allowed flow ends, and new ones are refused. */
  @Test
  void aLostPdpEndsEveryFlowWhenToldToAndNewOnesAreRefused() throws Exception {
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("before", roundTrip(s, "before"));
      pdp.close();
      assertTrue(ended(s), "the allowed flow ended with the PDP");
    }
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
    assertEquals(0, firewall.allowedFlows());
  }

  /**
   * The PDP lost with grants from two addresses: their flows end in the kernel together (one {@code
   * ss}, one transaction of each kind), not grant by grant: with a thousand subjects, a thousand of
   * each, 5-15 ms a transaction here.
   */
  @Test
  void aLostPdpEndsEveryGrantsFlowsInOneGo() throws Exception {
    lab.addClientAddress(secondIp());
    start();
    try (LogLines log = LogLines.of(HostFirewall.class);
        Socket first = connect().get(10, TimeUnit.SECONDS);
        Socket second = connectFrom(secondIp()).get(10, TimeUnit.SECONDS)) {
      assertEquals("one", roundTrip(first, "one"));
      assertEquals("two", roundTrip(second, "two"));
      pdp.close();
      assertTrue(ended(first), "the first grant's flow ended with the PDP");
      assertTrue(ended(second), "the second grant's flow ended with the PDP");
      List<String> ends =
          log.lines().stream().filter(l -> l.contains("ended in the kernel (pdp-lost)")).toList();
      assertEquals(1, ends.size(), String.join("\n", ends));
      assertTrue(ends.get(0).contains("2 flow(s)"), ends.get(0));
    }
  }

  /** {@code keep-granted}: the PDP lost, allowed flows go on; new ones are refused. */
  @Test
  void aLostPdpKeepsAllowedFlowsWhenToldToButAdmitsNothingNew() throws Exception {
    closeOnPdpLoss = false;
    validity = Duration.ofMinutes(1); // the flow is quiet while the new connect times out
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("before", roundTrip(s, "before"));
      pdp.close();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
      assertEquals("after", roundTrip(s, "after"), "the allowed flow goes on");
    }
  }

  /**
   * Each packet of an allowed flow renews its element in the kernel, so a flow with traffic
   * outlives its validity (2 s here); one with none for the validity is forgotten, and its request
   * state deleted at the PDP: no state is kept for flows that are over.
   */
  @Test
  void aFlowWithTrafficOutlivesItsValidityAndAnEndedOneIsForgottenAtBothEnds() throws Exception {
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      int n = 0;
      while (System.nanoTime() < until) {
        assertEquals("tick " + n, roundTrip(s, "tick " + n), "after " + n + " round trips");
        n++;
      }
      assertEquals(1, firewall.allowedFlows());
      assertEquals(1, pep.installed().get(5, TimeUnit.SECONDS).size());
    }
    Waits.await()
        .alias("the ended flow forgotten, its request state deleted")
        .until(
            () ->
                firewall.allowedFlows() == 0 && pep.installed().get(5, TimeUnit.SECONDS).isEmpty());
    assertFalse(
        nft("list", "set", "inet", "TABLE", "granted").contains(lab.clientIp),
        "its grant's element gone with its last flow");
  }

  /**
   * 40 connections at once from one subject (a SYN flood's shape) are one request to the PDP, and
   * the grant's validity ({@code valid-for}) lets her later connections in with none; a policy
   * change still ends every flow under it.
   */
  @Test
  void oneSubjectsManyFlowsAreOneRequestAndHerGrantIsReused() throws Exception {
    start();
    allowAliceForAnHour();
    long before = pdp.stats().decisions();
    List<CompletableFuture<Socket>> many = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      many.add(connect());
    }
    List<Socket> open = new ArrayList<>();
    try {
      for (CompletableFuture<Socket> c : many) {
        open.add(c.get(20, TimeUnit.SECONDS));
      }
      assertEquals(1, pdp.stats().decisions() - before, "one request for 40 flows");
      try (Socket later = connect().get(10, TimeUnit.SECONDS)) {
        assertEquals("again", roundTrip(later, "again"));
      }
      assertEquals(1, pdp.stats().decisions() - before, "the grant reused, within its validity");
      assertTrue(firewall.allowedFlows() >= 40, "flows allowed: " + firewall.allowedFlows());
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      pdp.reload(0xC0A5);
      for (Socket s : open) {
        assertTrue(ended(s), "every flow under the grant ended");
      }
      assertEquals(0, firewall.allowedFlows());
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /**
   * On a grant whose validity lasts, the kernel admits the subject's later flows from that address
   * by itself: none is queued or asked for, each carries data, and each is the firewall's all the
   * same (conntrack's events): counted, recorded ({@code firewall-flow}) and held. A policy change
   * ends them with the rest, and the reuse with them: the next connection is asked for and refused,
   * not admitted in the kernel. Before 2026-11-29 each such flow's SYN was queued and decided by
   * the firewall (its queue counter counted every one).
   */
  @Test
  void aReusedGrantsFlowsAreAdmittedInTheKernelAndStillRecordedAndEnded() throws Exception {
    start();
    allowAliceForAnHour();
    List<Socket> open = new ArrayList<>();
    try {
      Socket first = connect().get(10, TimeUnit.SECONDS);
      open.add(first);
      assertEquals("first", roundTrip(first, "first"));
      // the grant goes into the kernel's reusable set after the first flow's verdict
      Waits.await()
          .alias("the grant reusable in the kernel")
          .until(() -> nft("list", "set", "inet", "TABLE", "reusable").contains(lab.clientIp));
      long queued = firewall.counters().queued.get();
      long decisions = pdp.stats().decisions();
      for (int i = 0; i < 20; i++) {
        Socket s = connect().get(10, TimeUnit.SECONDS);
        open.add(s);
        assertEquals("more " + i, roundTrip(s, "more " + i));
      }
      assertEquals(queued, firewall.counters().queued.get(), "none of the 20 queued");
      assertEquals(decisions, pdp.stats().decisions(), "none of the 20 asked for");
      Waits.await()
          .alias("the kernel's 20 flows known to the firewall")
          .until(() -> firewall.counters().admittedInKernel.get() == 20);
      assertEquals(21, firewall.allowedFlows());
      String records = recordsOf(open.subList(1, open.size()));
      assertEquals(20, records.split("\"firewall-flow\"", -1).length - 1, records);
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      pdp.reload(0xC0A5);
      for (Socket s : open) {
        assertTrue(ended(s), "every flow under the grant ended, the kernel's too");
      }
      assertEquals(0, firewall.allowedFlows());
      assertFalse(
          nft("list", "set", "inet", "TABLE", "reusable").contains(lab.clientIp),
          "its reuse in the kernel ended with it");
      long asked = pdp.stats().decisions();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
      assertTrue(pdp.stats().decisions() > asked, "asked for, and refused");
      assertEquals(20, firewall.counters().admittedInKernel.get(), "none admitted in the kernel");
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /**
   * With {@code max-flows} flows held, a flow the kernel would admit on a reused grant finds its
   * set full and gets no SYN-ACK, as one refused through the queue; the flows held go on. Before
   * 2026-11-29 its SYN was let in without an element: the client connected and nothing crossed.
   */
  @Test
  void aFlowTheFullSetCannotTakeGetsNoSynAckEvenOnAReusedGrant() throws Exception {
    maxFlows = 4;
    validity = Duration.ofMinutes(1);
    start();
    allowAliceForAnHour();
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        Socket s = connect().get(10, TimeUnit.SECONDS);
        held.add(s);
        assertEquals("x", roundTrip(s, "x"));
        if (i == 0) {
          Waits.await()
              .alias("the grant reusable in the kernel")
              .until(() -> nft("list", "set", "inet", "TABLE", "reusable").contains(lab.clientIp));
        }
      }
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
      for (Socket s : held) {
        assertEquals("y", roundTrip(s, "y"), "the flows held go on");
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  /**
   * An address mapped to another subject while its first subject's grant is reused in the kernel:
   * told so ({@link HostFirewall#subjectsChanged}), the firewall stops the reuse at once and the
   * address's next flow is asked for as the new subject's; not told, a flow the kernel admits on
   * the old grant is ended as soon as the firewall hears of it.
   */
  @Test
  void anAddressMappedToAnotherSubjectIsNotAdmittedOnTheFirstSubjectsGrant() throws Exception {
    validity = Duration.ofMinutes(1); // her flow is quiet while bob's refused connect times out
    start();
    allowAliceForAnHour();
    try (Socket hers = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("alice", roundTrip(hers, "alice"));
      // not told: bob's flow is admitted on alice's grant in the kernel, and ended at once
      subject.set("bob");
      Socket bobs = connect().get(10, TimeUnit.SECONDS);
      open.add(bobs);
      Waits.await()
          .alias("the flow on alice's grant ended")
          .until(() -> firewall.counters().admittedAfterGrant.get() == 1);
      assertTrue(ended(bobs), "bob's flow on alice's grant ended");
      assertEquals(0, firewall.counters().admittedInKernel.get());
      // told: alice's grant is no longer reused, bob's next flow is asked for, and refused
      subject.set("alice");
      try (Socket again = connect().get(10, TimeUnit.SECONDS)) {
        assertEquals("again", roundTrip(again, "again"), "alice's grant reused again");
      }
      subject.set("bob");
      firewall.subjectsChanged();
      long asked = pdp.stats().decisions();
      Waits.await()
          .alias("the reuse ended")
          .until(() -> !nft("list", "set", "inet", "TABLE", "reusable").contains(lab.clientIp));
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
      assertTrue(pdp.stats().decisions() > asked, "bob asked for, and refused");
      assertEquals("alice", roundTrip(hers, "alice"), "alice's flow goes on");
    }
  }

  /**
   * Flows the kernel admits on a reused grant while the firewall's thread is held up, more than its
   * event socket holds (made small here), are found all the same: the lost events are counted, the
   * firewall reads conntrack's table for the flows it did not hear of, and each is recorded, held
   * and ended by a policy change as any.
   */
  @Test
  void flowsAdmittedWhileTheFirewallWasBehindAreFoundInConntrack() throws Exception {
    int buffer = FirewallKernel.eventBuffer;
    FirewallKernel.eventBuffer = 4096; // the kernel's least: a few events
    lab.addClientAddress(secondIp());
    try {
      start();
    } finally {
      FirewallKernel.eventBuffer = buffer;
    }
    allowAliceForAnHour();
    List<Socket> open = new ArrayList<>();
    CountDownLatch stall = new CountDownLatch(1);
    try {
      open.add(connect().get(10, TimeUnit.SECONDS)); // the grant, reused from now
      stallSecond = stall;
      CompletableFuture<Socket> held = connectFrom(secondIp()); // holds the firewall's thread
      assertTrue(stalled.await(10, TimeUnit.SECONDS), "the firewall's thread held");
      int n = 100;
      for (int i = 0; i < n; i++) {
        Socket s = connect().get(10, TimeUnit.SECONDS);
        open.add(s);
        assertEquals("x", roundTrip(s, "x"));
      }
      stall.countDown();
      Waits.await()
          .alias("the kernel's flows all known to the firewall")
          .until(() -> firewall.counters().admittedInKernel.get() == n);
      assertTrue(firewall.counters().eventsLost.get() > 0, "events lost: " + firewall.counters());
      recordsOf(open.subList(1, open.size()));
      try {
        open.add(held.get(10, TimeUnit.SECONDS));
      } catch (ExecutionException timedOut) {
        // held past its connect's time: no matter here
      }
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      pdp.reload(0xC0A5);
      for (Socket s : open) {
        assertTrue(ended(s), "every flow under the grant ended, the found ones too");
      }
      Waits.await().alias("no flow left").until(() -> firewall.allowedFlows() == 0);
    } finally {
      stall.countDown();
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /**
   * {@link SocketResets#SPLIT_AT} flows and more of one grant are reset by several {@code ss} at
   * once, each with a range of the clients' ports: the ranges leave none out.
   */
  @Test
  void aGrantsManyFlowsAreAllResetWhenSeveralSsShareThem() throws Exception {
    start();
    allowAliceForAnHour();
    int n = SocketResets.SPLIT_AT + 44;
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        Socket s = connect().get(10, TimeUnit.SECONDS);
        open.add(s);
        assertEquals("x", roundTrip(s, "x"));
      }
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      pdp.reload(0xC0A5);
      int ended = 0;
      for (Socket s : open) {
        ended += ended(s) ? 1 : 0;
      }
      assertEquals(n, ended, "every flow under the grant reset");
      assertEquals(0, firewall.allowedFlows());
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /**
   * A SYN flood from 20 of one subject's addresses at once is 20 requests, one per address (a rule
   * may decide on the address), but never more than one in flight at the PDP: each address waits
   * its turn behind the others of that subject and service, and every connection is admitted.
   */
  @Test
  void aFloodFromManyOfASubjectsAddressesIsOneRequestInFlightAtATime() throws Exception {
    String prefix = lab.clientIp.substring(0, lab.clientIp.lastIndexOf('.') + 1);
    for (int i = 10; i < 30; i++) {
      lab.addClientAddress(prefix + i);
      many.add(address(prefix + i));
    }
    start();
    // a grant with a validity: an address's later connections are let in on its grant, so each
    // address is one request however its three connections interleave with its answer
    allowAliceForAnHour();
    long before = pdp.stats().decisions();
    List<CompletableFuture<Socket>> flood = new ArrayList<>();
    for (int i = 10; i < 30; i++) {
      for (int j = 0; j < 3; j++) {
        flood.add(connectFrom(prefix + i));
      }
    }
    for (CompletableFuture<Socket> c : flood) {
      try (Socket s = c.get(30, TimeUnit.SECONDS)) {
        assertEquals("in", roundTrip(s, "in"));
      }
    }
    assertEquals(20, pdp.stats().decisions() - before, "one request per address");
    assertEquals(1, firewall.counters().mostRequestsInFlight.get(), "one in flight at a time");
  }

  /**
   * 10,000 flows allowed on one grant are 10,000 elements of the kernel's set, held after their
   * connections close (until their validity runs out), and one decision at the PDP.
   */
  @Test
  void tenThousandAllowedFlowsAreHeldInTheSet() throws Exception {
    validity = Duration.ofMinutes(5);
    start();
    allowAliceForAnHour();
    long before = pdp.stats().decisions();
    int n = 10_000;
    NetfilterLab.in(
            lab.client,
            () -> {
              for (int i = 0; i < n; i++) {
                try (Socket s = new Socket()) {
                  s.setSoLinger(true, 0); // a reset at close: no TIME_WAIT to hold ports
                  s.bind(new InetSocketAddress(lab.clientIp, 20_000 + i)); // a new flow each
                  s.connect(new InetSocketAddress(lab.serverIp, PORT), 5_000);
                }
              }
              return null;
            })
        .get(120, TimeUnit.SECONDS);
    assertEquals(1, pdp.stats().decisions() - before, "one decision for " + n + " flows");
    assertEquals(n, firewall.allowedFlows());
    assertEquals(n, firewall.counters().flows.get());
    String set =
        NetfilterLab.run(
            "ip",
            "netns",
            "exec",
            lab.server,
            "nft",
            "list",
            "set",
            "inet",
            "portcullis_" + firewall.settings().tag(),
            "allowed");
    int elements = set.split(java.util.regex.Pattern.quote(lab.clientIp + " . "), -1).length - 1;
    assertEquals(n, elements, "elements in the kernel's set");
  }

  /**
   * The metrics endpoint counts what the firewall did: queued first packets, a flow allowed, one
   * denied, one refused without a subject, the allowed flow held and then revoked; ready while the
   * queue has its reader and the PEP a PDP, not once it closes.
   */
  @Test
  void theMetricsCountWhatTheFirewallDidAndSayWhenItIsNotReady() throws Exception {
    validity = Duration.ofMinutes(1); // the kept flow is quiet while the refused connects time out
    start();
    try (MetricsEndpoint m =
        FirewallMetrics.open(new InetSocketAddress("127.0.0.1", 0), firewall, audit)) {
      String base = "http://127.0.0.1:" + m.address().getPort();
      Socket kept = connect().get(10, TimeUnit.SECONDS);
      open.add(kept);
      assertEquals("kept", roundTrip(kept, "kept"));
      subject.set("mallory");
      assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      subject.set(null);
      assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      String c = "component=\"firewall\"";
      String body = get(base + "/metrics").body();
      // a refused connect's SYN is sent again within its 2 s: asked again, counted again
      assertEquals(
          1, value(body, "portcullis_firewall_decisions_total{" + c + ",outcome=\"allow\"}"));
      assertTrue(
          value(body, "portcullis_firewall_decisions_total{" + c + ",outcome=\"deny\"}") >= 1);
      assertTrue(
          value(body, "portcullis_firewall_refused_total{" + c + ",reason=\"no_subject\"}") >= 1);
      assertEquals(1, value(body, "portcullis_firewall_flows{" + c + "}"));
      assertTrue(value(body, "portcullis_firewall_decision_seconds_count{" + c + "}") >= 2);
      assertEquals(
          0, value(body, "portcullis_firewall_queue_dropped_total{" + c + ",where=\"kernel\"}"));
      assertTrue(firewall.counters().queued.get() >= 3, firewall.counters().toString());
      assertTrue(firewall.counters().noSubject.get() >= 1, firewall.counters().toString());
      assertEquals(200, get(base + "/ready").statusCode());
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      pdp.reload(0xC0A5);
      assertTrue(ended(kept));
      Waits.await()
          .alias("the revoked flow counted")
          .until(
              () ->
                  get(base + "/metrics")
                      .body()
                      .contains(
                          "portcullis_firewall_ended_total{" + c + ",reason=\"revoked\"} 1.0"));
      firewall.close();
      HttpResponse<String> ready = get(base + "/ready");
      assertEquals(503, ready.statusCode());
      assertTrue(ready.body().contains("queue: closing"), ready.body());
    }
  }

  /** The value of {@code series} in a scrape's {@code body}. */
  static double value(String body, String series) {
    for (String line : body.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new AssertionError("no " + series + " in " + body);
  }

  static HttpResponse<String> get(String uri) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The PEP killed (SIGKILL, a firewall in a JVM of its own): nothing new is admitted, since the
   * queue without a reader drops (no {@code --queue-bypass}) and the rules it left stay. Before,
   * the same connection is admitted: the firewall was deciding.
   */
  @Test
  void aKilledFirewallAdmitsNothingNew() throws Exception {
    Files.writeString(dir.resolve("rules.xml"), ALLOW_ALICE);
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen address=\"127.0.0.1\" port=\"3288\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    Files.writeString(
        dir.resolve("pep.xml"),
        "<pep id=\"host-1\" client-type=\"0xC0A5\"><pdp address=\"127.0.0.1\" port=\"3288\"/>"
            + "</pep>");
    Files.writeString(
        dir.resolve("firewall.xml"),
        "<firewall pep=\"pep.xml\" queue=\"9\" table=\"killed\"><service name=\"demo\" address=\""
            + lab.serverIp
            + ":"
            + PORT
            + "\"/><subject source=\""
            + lab.clientIp
            + "/32\" name=\"alice\"/></firewall>");
    echo =
        NetfilterLab.in(lab.server, () -> new ServerSocket(PORT, 50, address(lab.serverIp))).get();
    open.add(echo);
    NetfilterLab.daemon("echo-accept", this::echo);
    Path pdpOut = dir.resolve("pdp.out");
    Process pdpJvm =
        lab.serverJvm(
            pdpOut, dev.portcullis.pdp.cli.PdpMain.class, "--config", dir.resolve("pdp.xml") + "");
    open.add(pdpJvm::destroyForcibly);
    Path fwOut = dir.resolve("firewall.out");
    Process fw =
        lab.serverJvm(
            fwOut,
            dev.portcullis.pep.cli.PepMain.class,
            "firewall",
            "-c",
            dir.resolve("firewall.xml") + "");
    open.add(fw::destroyForcibly);
    try {
      Waits.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(fwOut).contains("firewall: ready") || !fw.isAlive());
    } catch (org.awaitility.core.ConditionTimeoutException late) {
      // said below, with what both JVMs wrote
    }
    assertTrue(
        Files.readString(fwOut).contains("firewall: ready"),
        "the firewall's JVM: "
            + Files.readString(fwOut)
            + "\nthe PDP's: "
            + Files.readString(pdpOut));
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("admitted", roundTrip(s, "admitted"));
    }
    fw.destroyForcibly(); // SIGKILL: no shutdown hook, the rules stay, the queue has no reader
    assertTrue(fw.waitFor(10, TimeUnit.SECONDS), "the firewall's JVM ended");
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
    String left =
        NetfilterLab.run(
            "ip", "netns", "exec", lab.server, "nft", "list", "table", "inet", "portcullis_killed");
    assertTrue(left.contains("set allowed"), "the killed firewall's rules stay: " + left);
  }

  /**
   * A queue rule left by a firewall killed before on the same queue (SIGKILL skips its close) is
   * deleted at start, so a restart does not stack them, and none is left after this one closes
   * (before 2026-11-29 the stale rule stayed, queueing to a queue with no reader once this one
   * closed).
   */
  @Test
  void aQueueRuleLeftByAKilledFirewallIsDeletedAtStart() throws Exception {
    String rule =
        "INPUT -p tcp -d "
            + lab.serverIp
            + " --dport "
            + PORT
            + " --syn -m mark ! --mark 0x100000/0x100000 -j NFQUEUE --queue-num 9";
    List<String> insert = new ArrayList<>(List.of("ip", "netns", "exec", lab.server, "iptables"));
    insert.add("-I");
    insert.addAll(List.of(rule.split(" ")));
    NetfilterLab.run(insert.toArray(String[]::new));
    assertEquals(1, queueRules(), "the stale rule, by hand");
    start();
    assertEquals(2, queueRules(), "one per service (TCP and UDP), the stale one gone");
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("kept", roundTrip(s, "kept"));
    }
    firewall.close();
    assertEquals(0, queueRules(), "none left after the close");
  }

  /**
   * The firewall's audit once it holds a record of each of {@code flows} (the log's writer thread
   * writes a moment after the firewall records).
   */
  String recordsOf(List<Socket> flows) {
    Waits.await()
        .alias("a record of each flow")
        .until(
            () -> {
              String records = Files.readString(dir.resolve("firewall-audit.jsonl"));
              return flows.stream()
                  .allMatch(s -> records.contains(lab.clientIp + ":" + s.getLocalPort()));
            });
    try {
      return Files.readString(dir.resolve("firewall-audit.jsonl"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The NFQUEUE rules in the server's INPUT chain. */
  int queueRules() throws Exception {
    String rules = NetfilterLab.run("ip", "netns", "exec", lab.server, "iptables", "-S", "INPUT");
    return (int) rules.lines().filter(l -> l.contains("NFQUEUE")).count();
  }

  /** The next {@link #start} with the sample multilevel policy, its client type and intel-db. */
  void mls() throws IOException {
    Files.copy(
        SampleConfigs.copyInto(dir.resolve("samples")).resolve("policy-mls.xml"),
        dir.resolve("policy-mls.xml"));
    clientType = "0xC0A6";
    engine = "engine=\"mls\" policy=\"policy-mls.xml\"";
    service = "intel-db";
  }

  /**
   * MLS sessions (the sample multilevel policy: alice cleared up to SECRET with NATO, intel-db
   * SECRET NATO under Bell-LaPadula): alice's first flow logs her in at SECRET NATO and is then
   * decided under her session; mallory's login is refused and her connection gets no SYN-ACK; a
   * policy change that clears alice only to CONFIDENTIAL removes her session, and her established
   * flow ends; her flows over, she is logged out. All audited.
   */
  @Test
  void aSubjectsFlowsAreDecidedUnderHerSessionWhichEndsWithThem() throws Exception {
    mls();
    sessions =
        Map.of(
            "alice", new HostFirewall.SessionLevel(2, List.of("NATO")),
            "mallory", new HostFirewall.SessionLevel(2, List.of("NATO")));
    validity = Duration.ofMinutes(1);
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("secret", roundTrip(s, "secret"));
      Map<String, ?> installed = pep.installed().get(5, TimeUnit.SECONDS);
      assertEquals(2, installed.size(), "her login and her access: " + installed);
      subject.set("mallory"); // not in the policy: her login is refused
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> connect().get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
      // alice cleared only to CONFIDENTIAL now: the PDP removes her SECRET session
      Path mls = dir.resolve("policy-mls.xml");
      Files.writeString(
          mls,
          Files.readString(mls)
              .replace(
                  "<subject name=\"alice\" min=\"UNCLASSIFIED\" max=\"SECRET\"",
                  "<subject name=\"alice\" min=\"UNCLASSIFIED\" max=\"CONFIDENTIAL\""));
      pdp.reload(0xC0A6);
      assertTrue(ended(s), "her flow ended with her session");
    }
    Waits.await()
        .alias("nothing left at the PDP")
        .until(() -> pep.installed().get(5, TimeUnit.SECONDS).isEmpty());
    assertEquals(0, firewall.allowedFlows());
    firewall.close();
    audit.close();
    String records = Files.readString(dir.resolve("firewall-audit.jsonl"));
    assertTrue(records.contains("\"event\":\"firewall-session\""), records);
    assertTrue(records.contains("\"operation\":\"login\""), records);
    assertTrue(records.contains("\"operation\":\"removed\""), records);
    assertTrue(records.contains("\"reason\":\"session-removed\""), records);
  }

  /**
   * Her last flow over, alice is logged out: nothing of hers is left at the PDP; her next flow logs
   * her in again.
   */
  @Test
  void herLastFlowOverASubjectIsLoggedOut() throws Exception {
    mls();
    sessions = Map.of("alice", new HostFirewall.SessionLevel(2, List.of("NATO")));
    start(); // a 2 s validity: a closed flow is over 2 s later
    connect().get(10, TimeUnit.SECONDS).close();
    Waits.await()
        .alias("logged out, nothing left at the PDP")
        .until(() -> pep.installed().get(5, TimeUnit.SECONDS).isEmpty());
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("again", roundTrip(s, "again"));
      assertEquals(2, pep.installed().get(5, TimeUnit.SECONDS).size(), "logged in again");
    }
  }

  /**
   * A grant covers its subject from the client address its request came from: after a reload that
   * allows alice from her first address only (her grant's own decision unchanged), she is admitted
   * on it from there and asked for, and refused, from her second (before, the grant was reused from
   * any address of hers). A reload that takes the validity away ends the reuse at once: her next
   * connection is asked for.
   */
  @Test
  void aGrantFromOneAddressAdmitsNothingFromAnotherAndFollowsItsDecision() throws Exception {
    lab.addClientAddress(secondIp());
    start();
    allowAliceForAnHour();
    long before = pdp.stats().decisions();
    connect().get(10, TimeUnit.SECONDS).close(); // the grant, an hour, from her first address
    Files.writeString(
        dir.resolve("rules.xml"),
        ALLOW_ALICE.replace(
            "service=\"demo\"/>",
            "service=\"demo\" source=\"" + lab.clientIp + "/32\"/><grant valid-for=\"PT1H\"/>"));
    pdp.reload(0xC0A5);
    long reloaded = pdp.stats().decisions();
    connect().get(10, TimeUnit.SECONDS).close();
    assertEquals(reloaded, pdp.stats().decisions(), "reused from the address it was for");
    ExecutionException e =
        assertThrows(
            ExecutionException.class, () -> connectFrom(secondIp()).get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SocketTimeoutException, String.valueOf(e.getCause()));
    assertTrue(pdp.stats().decisions() > reloaded, "from her second address: asked for");
    // the validity taken away: the grant's changed Install ends its reuse
    Files.writeString(
        dir.resolve("rules.xml"),
        ALLOW_ALICE.replace(
            "service=\"demo\"/>", "service=\"demo\" source=\"" + lab.clientIp + "/32\"/>"));
    pdp.reload(0xC0A5);
    Waits.await()
        .alias("the changed Install reached the firewall")
        .until(
            () -> {
              long asked = pdp.stats().decisions();
              connect().get(10, TimeUnit.SECONDS).close();
              return pdp.stats().decisions() > asked;
            });
    assertTrue(pdp.stats().decisions() > before);
  }

  /**
   * A UDP service: a flow's first datagram is asked of the PDP and its later ones pass in the
   * kernel; a subject with no rule gets nothing back; a policy change ends the flow, and its next
   * datagram, a new flow to the kernel again, is refused.
   */
  @Test
  void aUdpFlowIsDecidedAtItsFirstDatagramAndEndedByAPolicyChange() throws Exception {
    start();
    DatagramSocket d = udpClient();
    long before = pdp.stats().decisions();
    assertEquals("one", udpRoundTrip(d, "one"));
    for (int i = 0; i < 20; i++) {
      assertEquals("more " + i, udpRoundTrip(d, "more " + i));
    }
    assertEquals(1, pdp.stats().decisions() - before, "one decision for the flow");
    assertEquals(1, firewall.allowedFlows());
    Files.writeString(dir.resolve("rules.xml"), NOBODY);
    pdp.reload(0xC0A5);
    Waits.await().alias("the UDP flow ended").until(() -> firewall.allowedFlows() == 0);
    assertEquals(null, udpRoundTrip(d, "after"), "nothing crosses after the policy change");
    subject.set("mallory");
    assertEquals(null, udpRoundTrip(udpClient(), "mallory"), "no rule for her: nothing back");
  }

  /** An nft command in the server's namespace on the firewall's table; its output. */
  String nft(String... words) throws Exception {
    List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", lab.server, "nft"));
    for (String w : words) {
      c.add(w.replace("TABLE", "portcullis_" + firewall.settings().tag()));
    }
    return NetfilterLab.run(c.toArray(String[]::new));
  }

  /**
   * Revocation deletes a grant's one element in the kernel, not each of its flows' first: a flow
   * whose own element is still there carries nothing once its grant's is gone.
   */
  @Test
  void aFlowCrossesOnlyWhileItsGrantsElementIsInTheKernel() throws Exception {
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("before", roundTrip(s, "before"));
      String grant = lab.clientIp + " . 6 . " + lab.serverIp + " . " + PORT;
      String flow =
          lab.clientIp + " . 6 . " + s.getLocalPort() + " . " + lab.serverIp + " . " + PORT;
      assertTrue(
          nft("get", "element", "inet", "TABLE", "granted", "{ " + grant + " }")
              .contains(lab.clientIp));
      nft("delete", "element", "inet", "TABLE", "granted", "{ " + grant + " }");
      assertTrue(
          nft("get", "element", "inet", "TABLE", "allowed", "{ " + flow + " }")
              .contains(lab.clientIp),
          "the flow's own element is still there");
      s.setSoTimeout(1_000);
      s.getOutputStream().write("after".getBytes(StandardCharsets.US_ASCII));
      assertThrows(
          SocketTimeoutException.class,
          () -> s.getInputStream().read(),
          "nothing crosses without the grant's element");
    }
  }

  /**
   * Two subjects' grants on one client address and service (the address mapped to another subject
   * while the first's flow went on): ending one grant leaves the kernel's element the other's flow
   * needs.
   */
  @Test
  void endingOneOfTwoGrantsOnAnAddressLeavesTheOthersFlowCrossing() throws Exception {
    start();
    Files.writeString(
        dir.resolve("rules.xml"),
        ALLOW_ALICE.replace(
            "<default",
            "<rule id=\"bob\" decision=\"install\"><match subject=\"bob\" service=\"demo\"/>"
                + "</rule><default"));
    pdp.reload(0xC0A5);
    try (Socket alices = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("alice", roundTrip(alices, "alice"));
      subject.set("bob");
      try (Socket bobs = connect().get(10, TimeUnit.SECONDS)) {
        assertEquals("bob", roundTrip(bobs, "bob"));
        Files.writeString(dir.resolve("rules.xml"), ALLOW_ALICE.replace("\"alice\"", "\"bob\""));
        pdp.reload(0xC0A5); // alice's grant removed, bob's kept
        assertTrue(ended(alices), "alice's flow ended");
        assertEquals("still", roundTrip(bobs, "still"), "bob's flow still crosses");
        assertEquals(1, firewall.allowedFlows());
      }
    }
  }

  @Test
  void aPolicyChangeCutsAnEstablishedFlowAndNothingMoreCrosses() throws Exception {
    start();
    try (Socket s = connect().get(10, TimeUnit.SECONDS)) {
      assertEquals("before", roundTrip(s, "before"));
      Files.writeString(dir.resolve("rules.xml"), NOBODY);
      long t0 = System.nanoTime();
      pdp.reload(0xC0A5); // the installed access is removed: an unsolicited DEC to the firewall
      // the server's socket was destroyed: the client's read ends (reset or end of stream)
      boolean ended = ended(s);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ended, "the connection ended");
      assertTrue(ms < 5_000, "ended " + ms + " ms after the policy change");
      // and nothing more crosses: the server's end was destroyed with a reset, which the read
      // above met; a write finds the connection gone
      assertThrows(
          IOException.class,
          () -> {
            for (int i = 0; i < 3; i++) {
              s.getOutputStream().write("after".getBytes(StandardCharsets.US_ASCII));
            }
          });
      assertEquals(0, firewall.allowedFlows());
    }
    Waits.await()
        .alias("the revoked grant's request state deleted")
        .until(() -> pep.installed().get(5, TimeUnit.SECONDS).isEmpty());
    firewall.close();
    audit.close();
    Path log = dir.resolve("firewall-audit.jsonl");
    assertTrue(AuditChain.verify(log).intact(), "the firewall's audit verifies");
    String records = Files.readString(log);
    assertTrue(records.contains("\"event\":\"firewall-decision\""), records);
    assertTrue(records.contains("\"decision\":\"install\""), records);
    assertTrue(
        records.contains("\"event\":\"firewall-ended\"")
            && records.contains("\"reason\":\"remove\""),
        records);
    assertTrue(records.contains("\"subject\":\"alice\""), records);
  }
}
