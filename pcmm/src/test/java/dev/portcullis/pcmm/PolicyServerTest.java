package dev.portcullis.pcmm;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The policy server against simulated CMTSs on loopback. */
@Timeout(60)
class PolicyServerTest {
  static final PolicyServer.Settings FAST =
      new PolicyServer.Settings(
          30, Duration.ofSeconds(3), Duration.ofMillis(20), Duration.ofMillis(300));

  static Inet4Address ip(String s) {
    try {
      return (Inet4Address) InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  static GateRequest request(int subscriber, String serviceClass, int port) {
    Inet4Address sub = ip("10.1." + (subscriber >> 8 & 0xFF) + "." + (subscriber & 0xFF));
    return new GateRequest(
        new PcmmObject.Amid(1, 7),
        new PcmmObject.SubscriberId(sub),
        new PcmmObject.GateSpec(PcmmObject.GateSpec.UPSTREAM, 0xb8, 0xfc, 1, 200, 300, 0, 0),
        new TrafficProfile.ServiceClassName(TrafficProfile.AUTHORIZED, serviceClass),
        List.of(new PcmmClassifier.Classifier(17, 0, 0, sub, ip("192.0.2.10"), 0, port, 64)),
        List.of());
  }

  static <T> T join(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  static Throwable failure(CompletableFuture<?> f) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
    return e.getCause();
  }

  @Test
  void gatesAreSetQueriedAndDeletedWithNoneLostOrDoubled() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(5, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps =
            PolicyServer.start(sim.addresses(), new SubscriberLimits(10, Set.of()), FAST)) {
      join(ps.ready());
      List<String> cmtss = ps.cmtss();
      List<CompletableFuture<Gate>> sets = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        sets.add(ps.set(cmtss.get(i % 5), request(i / 5, "VoIP_UP", 5060 + i % 5)));
      }
      Set<String> keys = new HashSet<>();
      for (CompletableFuture<Gate> f : sets) {
        keys.add(join(f).key());
      }
      assertEquals(1000, keys.size(), "1000 different gates");
      assertEquals(1000, ps.gates().size());
      assertEquals(1000, sim.gates());
      for (CmtsSimulator.Cmts c : sim.cmtss()) {
        assertEquals(200, c.created(), c.name());
        assertEquals(200, ps.gates(c.name()).size(), c.name());
      }
      for (Gate g : ps.gates().subList(0, 50)) {
        GateMessage m = join(ps.info(g));
        assertEquals(GateCommand.GATE_INFO_ACK, m.command(), m.toString());
        assertEquals(g.gateId(), m.gateId().id());
        assertEquals(PcmmObject.GateState.AUTHORIZED, m.gateState().state());
      }
      List<CompletableFuture<Void>> deletes = new ArrayList<>();
      for (Gate g : ps.gates()) {
        deletes.add(ps.delete(g, "test"));
      }
      for (CompletableFuture<Void> f : deletes) {
        join(f);
      }
      assertEquals(0, ps.gates().size());
      assertEquals(0, sim.gates());
      assertEquals(1000, sim.cmtss().stream().mapToLong(CmtsSimulator.Cmts::deleted).sum());
    }
  }

  @Test
  void refusalsSayWhoRefusedAndWhy() throws Exception {
    SubscriberLimits limits = new SubscriberLimits(2, Set.of("VoIP_UP", "Gold"));
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), limits, FAST)) {
      join(ps.ready());
      join(ps.set("cmts-1", request(1, "VoIP_UP", 5060)));
      join(ps.set("cmts-1", request(1, "VoIP_UP", 5061)));
      Throwable e = failure(ps.set("cmts-1", request(1, "VoIP_UP", 5062)));
      assertInstanceOf(GateRefusedException.class, e);
      assertTrue(
          e.getMessage().contains("denied by policy") && e.getMessage().contains("limit 2"),
          e.getMessage());
      e = failure(ps.set("cmts-1", request(2, "BE", 80)));
      assertTrue(e.getMessage().contains("service class BE not allowed"), e.getMessage());
      // allowed by the policy, unknown to the CMTS: its error comes back
      e = failure(ps.set("cmts-1", request(3, "Gold", 80)));
      GateRefusedException r = assertInstanceOf(GateRefusedException.class, e);
      assertEquals(PcmmErrorCode.UNDEFINED_SERVICE_CLASS_NAME.code(), r.error().code());
      assertTrue(e.getMessage().contains("Undefined Service Class Name"), e.getMessage());
      assertEquals(2, ps.gates().size());
      assertEquals(2, sim.gates());
      assertThrows(IllegalArgumentException.class, () -> ps.set("cmts-9", request(1, "BE", 1)));
    }
  }

  @Test
  void aPolicyThatThrowsRefusesNewGatesAndTakesNoneAway() throws Exception {
    SubscriberLimits limits = new SubscriberLimits(10, Set.of());
    boolean[] broken = {false};
    GatePolicy fragile =
        (r, others) -> {
          if (broken[0]) {
            throw new IllegalStateException("directory unreachable");
          }
          return limits.decide(r, others);
        };
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), fragile, FAST)) {
      join(ps.ready());
      join(ps.set("cmts-1", request(1, "BE", 80)));
      broken[0] = true;
      Throwable e = failure(ps.set("cmts-1", request(2, "BE", 80)));
      assertTrue(e.getMessage().contains("the policy failed"), e.getMessage());
      assertEquals(0, join(ps.reevaluate()));
      assertEquals(1, ps.gates().size());
      assertEquals(1, sim.gates());
    }
  }

  @Test
  void aPolicyChangeDeletesExactlyTheGatesItNoLongerAllows() throws Exception {
    SubscriberLimits limits = new SubscriberLimits(10, Set.of());
    try (CmtsSimulator sim = new CmtsSimulator(2, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), limits, FAST)) {
      join(ps.ready());
      List<CompletableFuture<Gate>> sets = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        sets.add(ps.set("cmts-" + (1 + i % 2), request(i, i % 4 == 0 ? "VoIP_UP" : "BE", 5060)));
      }
      for (CompletableFuture<Gate> f : sets) {
        join(f);
      }
      AtomicInteger told = new AtomicInteger();
      ps.addListener(
          new GateListener() {
            @Override
            public void deleted(Gate gate, String reason) {
              assertTrue(reason.contains("service class VoIP_UP not allowed"), reason);
              told.incrementAndGet();
            }
          });
      limits.limits(10, Set.of("BE"));
      assertEquals(50, join(ps.reevaluate()));
      assertEquals(50, told.get());
      assertEquals(150, ps.gates().size());
      assertEquals(150, sim.gates());
      assertTrue(
          ps.gates().stream()
              .allMatch(
                  g ->
                      g.request().trafficProfile() instanceof TrafficProfile.ServiceClassName s
                          && s.name().equals("BE")));
      assertEquals(0, join(ps.reevaluate()), "nothing more to delete");
    }
  }

  @Test
  void aRevokedSubscriberLosesExactlyItsGatesAtOnce() throws Exception {
    SubscriberLimits limits = new SubscriberLimits(10, Set.of());
    AtomicInteger asked = new AtomicInteger();
    GatePolicy counted =
        (r, others) -> {
          asked.incrementAndGet();
          return limits.decide(r, others);
        };
    try (CmtsSimulator sim = new CmtsSimulator(3, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), counted, FAST)) {
      join(ps.ready());
      for (int sub = 0; sub < 3; sub++) {
        for (int i = 0; i < 6; i++) {
          join(ps.set("cmts-" + (1 + i % 3), request(sub, "BE", 1000 + i)));
        }
      }
      InetAddress two = request(2, "BE", 0).subscriber().address();
      limits.revoke(two);
      asked.set(0);
      assertEquals(6, join(ps.reevaluate(g -> g.request().subscriber().address().equals(two))));
      assertEquals(6, asked.get(), "only the revoked subscriber's gates are decided again");
      assertEquals(12, ps.gates().size());
      assertTrue(
          ps.gates().stream().noneMatch(g -> g.request().subscriber().address().equals(two)));
      assertEquals(12, sim.gates(), "deleted on every CMTS it had gates on");
      Throwable e = failure(ps.set("cmts-1", request(2, "BE", 9)));
      assertTrue(e.getMessage().contains("subscriber 10.1.0.2 revoked"), e.getMessage());
      limits.restore(two);
      join(ps.set("cmts-1", request(2, "BE", 9)));
      assertEquals(13, sim.gates());
    }
  }

  @Test
  void aGateIsChangedInPlaceWithinPolicy() throws Exception {
    SubscriberLimits limits = new SubscriberLimits(1, Set.of("VoIP_UP", "BE"));
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), limits, FAST)) {
      join(ps.ready());
      Gate g = join(ps.set("cmts-1", request(1, "VoIP_UP", 5060)));
      // the subscriber's limit is 1: the gate itself does not count against its own change
      Gate changed = join(ps.modify(g, request(1, "BE", 5060)));
      assertEquals(g.gateId(), changed.gateId());
      assertEquals(List.of(changed), ps.gates());
      assertEquals(1, sim.gates(), "changed in place, not a second gate");
      assertEquals(1, sim.cmts("cmts-1").created());
      Throwable e = failure(ps.modify(changed, request(1, "VoIP_DN", 5060)));
      assertTrue(e.getMessage().contains("service class VoIP_DN not allowed"), e.getMessage());
      e = failure(ps.modify(g, request(1, "BE", 5061)));
      assertTrue(e.getMessage().contains("not held here"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> ps.modify(changed, request(2, "BE", 80)));
      assertEquals(List.of(changed), ps.gates());
    }
  }

  @Test
  void aGatesStateFollowsTheCmtsReports() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps =
            PolicyServer.start(sim.addresses(), new SubscriberLimits(10, Set.of()), FAST)) {
      join(ps.ready());
      Gate a = join(ps.set("cmts-1", request(1, "VoIP_UP", 5060)));
      Gate b = join(ps.set("cmts-1", request(2, "VoIP_UP", 5060)));
      List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
      ps.addListener(
          new GateListener() {
            @Override
            public void stateChanged(Gate gate) {
              heard.add("state " + gate.state());
            }

            @Override
            public void deleted(Gate gate, String reason) {
              heard.add("deleted: " + reason);
            }
          });
      CmtsSimulator.Cmts c = sim.cmts("cmts-1");
      assertTrue(c.reportState(a.gateId(), PcmmObject.GateState.COMMITTED, 0));
      await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 1);
      assertEquals(
          PcmmObject.GateState.COMMITTED,
          ps.gates().stream()
              .filter(g -> g.gateId() == a.gateId())
              .findFirst()
              .orElseThrow()
              .state());
      assertTrue(c.reportState(b.gateId(), PcmmObject.GateState.IDLE, 5)); // T3: inactivity
      await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 2);
      assertEquals(List.of("state 4", "deleted: the CMTS closed it (reason 5)"), heard);
      assertEquals(1, ps.gates().size());
      assertEquals(1, sim.gates());
    }
  }

  @Test
  void aCmtsThatDropsTheConnectionIsReconnectedAndItsGatesChecked() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(2, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps =
            PolicyServer.start(sim.addresses(), new SubscriberLimits(10, Set.of()), FAST)) {
      join(ps.ready());
      for (int i = 0; i < 20; i++) {
        join(ps.set("cmts-1", request(i, "BE", 80)));
      }
      join(ps.set("cmts-2", request(99, "BE", 80)));
      List<Gate> lost = new ArrayList<>();
      ps.addListener(
          new GateListener() {
            @Override
            public void lost(Gate gate, String reason) {
              synchronized (lost) {
                lost.add(gate);
              }
            }
          });
      CmtsSimulator.Cmts c1 = sim.cmts("cmts-1");
      int forgotten = c1.gateIds().iterator().next();
      assertTrue(c1.forget(forgotten));
      c1.dropConnections();
      await().atMost(Duration.ofSeconds(20)).until(() -> ps.gates("cmts-1").size() == 19);
      synchronized (lost) {
        assertEquals(1, lost.size());
        assertEquals(forgotten, lost.get(0).gateId());
      }
      assertTrue(ps.isReady("cmts-1"));
      join(ps.set("cmts-1", request(50, "BE", 80)));
      assertEquals(20, sim.cmts("cmts-1").gates());
      assertEquals(1, ps.gates("cmts-2").size(), "the other CMTS is not touched");
      assertEquals(21, sim.gates());
    }
  }

  @Test
  void keepAlivesKeepACmtsAndSilenceEndsIt() throws Exception {
    PolicyServer.Settings oneSecond =
        new PolicyServer.Settings(
            1, Duration.ofSeconds(3), Duration.ofMillis(20), Duration.ofMillis(300));
    try (CmtsSimulator talking = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        CmtsSimulator silent = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT.silent())) {
      Map<String, InetSocketAddress> cmtss = new LinkedHashMap<>();
      cmtss.put("talking", talking.cmtss().get(0).address());
      cmtss.put("silent", silent.cmtss().get(0).address());
      try (PolicyServer ps =
          PolicyServer.start(cmtss, new SubscriberLimits(10, Set.of()), oneSecond)) {
        join(ps.ready());
        // the 1 s KA timer on the server's real loop: keep-alives every third of it keep one CMTS,
        // silence ends the other (each waited for as it happens; the timer itself on the loop's
        // time alone in IdleWatchTest)
        CmtsSimulator.Cmts t = talking.cmtss().get(0);
        CmtsSimulator.Cmts s = silent.cmtss().get(0);
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(
                () -> {
                  assertTrue(
                      s.opened() >= 3,
                      "the silent CMTS was closed and connected again: " + s.opened());
                  assertTrue(t.echoes() >= 5, "keep-alives echoed: " + t.echoes());
                });
        assertEquals(1, t.opened(), "the talking CMTS kept its one connection");
        join(ps.set("talking", request(1, "BE", 80)));
      }
    }
  }

  /** A "CMTS" that answers every connection with junk, counting them. */
  static final class JunkCmts implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    final AtomicInteger accepted = new AtomicInteger();
    final Thread thread;

    JunkCmts(byte[] junk) throws IOException {
      thread =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept()) {
                    accepted.incrementAndGet();
                    OutputStream out = s.getOutputStream();
                    out.write(junk);
                    out.flush();
                    s.setSoTimeout(2_000);
                    s.getInputStream().read(new byte[1024]); // the Client-Close, or the close
                  } catch (IOException e) {
                    // closed, or the policy server hung up: next
                  }
                }
              },
              "junk-cmts");
      thread.setDaemon(true);
      thread.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  @Test
  void aHostileCmtsIsCutOffWithoutHurtingTheOthers() throws Exception {
    byte[] badLength = {0x10, 0x06, (byte) 0x80, 0x0a, 0, 0, 0, 3}; // a length below the header's
    byte[] wrongType =
        dev.portcullis.cops.CopsCodec.encode(
            dev.portcullis.cops.ClientOpen.of(0xC0A5, "not-a-cmts"));
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        JunkCmts junk = new JunkCmts(badLength);
        JunkCmts other = new JunkCmts(wrongType)) {
      Map<String, InetSocketAddress> cmtss = new LinkedHashMap<>(sim.addresses());
      cmtss.put("junk", junk.address());
      cmtss.put("other", other.address());
      try (PolicyServer ps = PolicyServer.start(cmtss, new SubscriberLimits(10, Set.of()), FAST)) {
        await().atMost(Duration.ofSeconds(20)).until(() -> ps.isReady("cmts-1"));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> junk.accepted.get() >= 3 && other.accepted.get() >= 3);
        assertTrue(!ps.ready().isDone(), "not ready while two CMTSs never open");
        Gate g = join(ps.set("cmts-1", request(1, "BE", 80)));
        assertEquals(GateCommand.GATE_INFO_ACK, join(ps.info(g)).command());
        Throwable e = failure(ps.set("junk", request(2, "BE", 80)));
        assertTrue(e.getMessage().contains("not connected"), e.getMessage());
      }
    }
  }
}
