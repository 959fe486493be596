package dev.portcullis.pdp;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.fleet.FleetMembers;
import dev.portcullis.state.Ensembles;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.ZooKeeperStateStore;
import dev.portcullis.support.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * MYSEA's federation on a real 3-node ZooKeeper ensemble: a user logs in through a PEP of one PDP,
 * and a service's PEP attached to another PDP is decided by that session, and loses the decision
 * when the session changes or ends, or when the PDP holding it stops.
 */
@ExtendWith(FleetEnsemble.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FleetMlsTest {
  static final int MLS = 0xC0A6;

  @TempDir Path dir;

  /** A PDP of the fleet {@code namespace}, deciding MLS with the given consistency. */
  PdpServer pdp(String namespace, String consistency) throws Exception {
    return pdp(FleetEnsemble.connectString(), namespace, consistency);
  }

  PdpServer pdp(String connect, String namespace, String consistency) throws Exception {
    Path policy = dir.resolve("policy-mls.xml");
    if (!Files.exists(policy)) {
      Files.copy(Path.of("../config/policy-mls.xml"), policy);
      DurableFiles.write(dir.resolve("zk.secret"), (FleetEnsemble.IDENTITY + "\n").getBytes());
    }
    Path cfg = Files.createTempFile(dir, "pdp", ".xml");
    Files.writeString(
        cfg,
        "<pdp><state store=\"zookeeper\" connect=\""
            + connect
            + "\" namespace=\""
            + namespace
            + "\" session-timeout=\"PT6S\" auth-file=\"zk.secret\"/>"
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\""
            + " consistency=\""
            + consistency
            + "\"/></pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  static AccessRequest login(String subject, int level) {
    return AccessRequest.login(subject, level, List.of("NATO"));
  }

  static AccessRequest changeLevel(String subject, int level) {
    return AccessRequest.changeLevel(subject, level);
  }

  static AccessRequest read(String subject, String service) {
    return AccessRequest.access(subject, service, AccessMode.READ);
  }

  static Decision pushed(BlockingPep pep) throws Exception {
    Decision d = pep.pushed(10_000);
    assertNotNull(d, "no unsolicited decision in 10 s");
    assertFalse(d.solicited(), "expected an unsolicited decision");
    return d;
  }

  /**
   * Asks on one handle until the PDP installs (the cached view follows the store within
   * milliseconds), failing after 10 s; the pushes raced by the asking are forgotten.
   */
  static void awaitInstalled(BlockingPep pep, AccessRequest r) {
    await()
        .pollInterval(Duration.ofMillis(20))
        .alias("the PDP installs " + r)
        .until(() -> pep.ask("access", r));
    pep.forgetPushed();
  }

  @Test
  void aSessionOpenedThroughOnePdpDecidesAccessOnAnother() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "cached");
        PdpServer b = pdp(ns, "cached");
        BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
        BlockingPep proxy = new BlockingPep(b.address(), MLS, "intel-proxy")) {
      assertFalse(proxy.ask("access", read("alice", "intel-db")), "no session yet");
      assertTrue(terminal.ask("login", login("alice", 2)), "LOGIN at SECRET");
      // B hears of the session through its watch and installs what it refused... (a new request)
      // B sees alice's SECRET session: read intel-db (SECRET) allowed
      awaitInstalled(proxy, read("alice", "intel-db"));
      // CHANGE_LEVEL to CONFIDENTIAL on A: B removes the installed read (no read up)
      assertTrue(terminal.ask("login", changeLevel("alice", 1)));
      Decision d = pushed(proxy);
      assertFalse(BlockingPep.installs(d), "removed after the level went down");
      // back to SECRET: installed again
      assertTrue(terminal.ask("login", changeLevel("alice", 2)));
      assertTrue(BlockingPep.installs(pushed(proxy)), "installed again at SECRET");
      // LOGOUT on A: removed on B
      assertTrue(terminal.ask("logout", AccessRequest.of(AccessOperation.LOGOUT, "alice")));
      assertFalse(BlockingPep.installs(pushed(proxy)), "removed after LOGOUT");
      assertEquals(0, ((dev.portcullis.pdp.policy.mls.MlsEngine) b.engine(MLS)).sessionCount());
    }
  }

  @Test
  void sessionsEndWhenThePdpHoldingThemStops() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer b = pdp(ns, "cached");
        BlockingPep proxy = new BlockingPep(b.address(), MLS, "intel-proxy")) {
      PdpServer a = pdp(ns, "cached");
      try (BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1")) {
        assertTrue(terminal.ask("login", login("alice", 2)));
        awaitInstalled(proxy, read("alice", "intel-db"));
      }
      a.close(); // its lease on alice's session ends with it
      assertFalse(BlockingPep.installs(pushed(proxy)), "removed when the session's PDP stopped");
    }
  }

  @Test
  void linearizableModeSeesALoginAtOnce() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "cached");
        PdpServer c = pdp(ns, "linearizable");
        BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
        BlockingPep proxy = new BlockingPep(c.address(), MLS, "intel-proxy")) {
      for (int i = 0; i < 10; i++) {
        String user = i % 2 == 0 ? "alice" : "bob";
        assertTrue(terminal.ask("login-" + i, login(user, 2)));
        // no waiting: a synchronous read after the LOGIN's write
        assertTrue(proxy.ask("access-" + i, read(user, "intel-db")), "round " + i);
        assertTrue(terminal.ask("logout-" + i, AccessRequest.of(AccessOperation.LOGOUT, user)));
        assertFalse(proxy.ask("after-" + i, read(user, "intel-db")), "round " + i);
        pushed(proxy); // the installed access removed by the watch, too
      }
    }
  }

  /**
   * Issue 44 item 5: linearizable PDPs answer from memory under a read lease, and every write of a
   * session revokes the leases before its DEC goes out. So whatever the PEP asks after the DEC of a
   * CHANGE_LEVEL down or of a LOGOUT, on any linearizable PDP, is decided on that change: never on
   * the session as it was (docs/fleet.md, "Linearizable reads under a lease").
   */
  @Test
  void aRevokedSessionIsNeverReadAfterItsRevocationsDec() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "cached");
        PdpServer b = pdp(ns, "linearizable");
        PdpServer c = pdp(ns, "linearizable");
        BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
        BlockingPep atB = new BlockingPep(b.address(), MLS, "proxy-b");
        BlockingPep atC = new BlockingPep(c.address(), MLS, "proxy-c")) {
      for (int i = 0; i < 30; i++) {
        assertTrue(terminal.ask("login-" + i, login("alice", 2)));
        assertTrue(atB.ask("b-" + i, read("alice", "intel-db")), "round " + i);
        assertTrue(atC.ask("c-" + i, read("alice", "intel-db")), "round " + i);
        assertTrue(terminal.ask("login-" + i, changeLevel("alice", 1)), "down to CONFIDENTIAL");
        assertFalse(atB.ask("b-down-" + i, read("alice", "intel-db")), "round " + i + ": B");
        assertFalse(atC.ask("c-down-" + i, read("alice", "intel-db")), "round " + i + ": C");
        assertTrue(terminal.ask("logout-" + i, AccessRequest.of(AccessOperation.LOGOUT, "alice")));
        assertFalse(atB.ask("b-out-" + i, read("alice", "intel-db")), "round " + i + ": B");
        assertFalse(atC.ask("c-out-" + i, read("alice", "intel-db")), "round " + i + ": C");
        atB.forgetPushed();
        atC.forgetPushed();
      }
    }
  }

  @Test
  void aPdpCutOffFromTheStoreFailsClosedAndRecovers() throws Exception {
    try (TestingCluster own = Ensembles.started()) { // this test takes the quorum away
      String ns = FleetEnsemble.namespace();
      try (PdpServer a = pdp(own.getConnectString(), ns, "cached");
          BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
          BlockingPep proxy = new BlockingPep(a.address(), MLS, "intel-proxy")) {
        assertTrue(terminal.ask("login", login("alice", 2)));
        assertTrue(proxy.ask("access", read("alice", "intel-db")));
        List<InstanceSpec> specs = new ArrayList<>(own.getInstances());
        own.killServer(specs.get(0));
        own.killServer(specs.get(1)); // one of three left: no quorum, clients are cut off
        Decision removed = pushed(proxy);
        assertFalse(BlockingPep.installs(removed), "installed access removed while cut off");
        assertFalse(proxy.ask("access-2", read("alice", "intel-db")), "new access denied");
        assertFalse(terminal.ask("login-2", login("bob", 2)), "no session opened while cut off");
        Ensembles.restart(own, specs.get(0));
        Ensembles.restart(own, specs.get(1));
        // back: decisions follow the store again (alice's session survived if the outage was
        // shorter than the session timeout; a new LOGIN works either way)
        await()
            .pollInterval(Duration.ofMillis(50))
            .alias("a LOGIN works again once the quorum is back")
            .until(() -> terminal.ask("login-3", login("bob", 2)));
        proxy.forgetPushed();
        awaitInstalled(proxy, read("bob", "intel-db"));
      }
    }
  }

  @Test
  void aPdpWhoseStoreSessionExpiresEndsItsSessionsAndSendsItsPepsAway() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (PdpServer a = pdp(ns, "cached");
        PdpServer b = pdp(ns, "cached");
        BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
        BlockingPep atA = new BlockingPep(a.address(), MLS, "proxy-a");
        BlockingPep atB = new BlockingPep(b.address(), MLS, "proxy-b")) {
      assertTrue(terminal.ask("login", login("alice", 2)), "alice's session, held by A");
      awaitInstalled(atB, read("alice", "intel-db"));
      // A must have seen B's membership entry (written at B's start) before it is cut off
      await().until(() -> a.fleetMembers().size() == 2);
      ((ZooKeeperStateStore) a.stateStore()).expireSession();
      assertFalse(BlockingPep.installs(pushed(atB)), "alice's session ended fleet-wide");
      ClientClose cc = atA.clientClose(10_000);
      assertEquals(ErrorCode.REDIRECT_TO_PREFERRED_SERVER.code(), cc.error().code());
      assertEquals(b.address().getPort(), cc.redirect().port(), "sent to the other member");
    }
  }

  /**
   * The whole ensemble down for longer than the session timeout: both PDPs give their sessions up,
   * and the ensemble, once back, keeps the old ones for one more timeout. Nobody decides from what
   * an old session held (alice, logged in through A before, has no session at B), a LOGIN through A
   * is answered once held by A's new session and outlives the old ones (bob), and each PDP is a
   * member again under its new session: membership entries used to be written into the old
   * sessions' entries, and the fleet lost both members for good when those ended.
   */
  @Test
  void afterAnOutageLongerThanTheSessionTimeoutNothingRestsOnTheOldSessions() throws Exception {
    try (TestingCluster own = Ensembles.started()) {
      String ns = FleetEnsemble.namespace();
      try (PdpServer a = pdp(own.getConnectString(), ns, "cached");
          PdpServer b = pdp(own.getConnectString(), ns, "cached");
          BlockingPep terminal = new BlockingPep(a.address(), MLS, "tpe-1");
          BlockingPep atB = new BlockingPep(b.address(), MLS, "proxy-b")) {
        assertTrue(terminal.ask("login", login("alice", 2)), "alice's session, held by A");
        assertTrue(terminal.ask("login-bob", login("bob", 2)), "bob's too");
        awaitInstalled(atB, read("alice", "intel-db"));
        List<InstanceSpec> specs = new ArrayList<>(own.getInstances());
        for (InstanceSpec spec : specs) {
          own.killServer(spec);
        }
        // both give their sessions up after the 6 s session timeout
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    a.stateStore().connection() == StateStore.Connection.LOST
                        && b.stateStore().connection() == StateStore.Connection.LOST);
        assertEquals(StateStore.Connection.LOST, a.stateStore().connection());
        assertEquals(StateStore.Connection.LOST, b.stateStore().connection());
        for (InstanceSpec spec : specs) {
          Ensembles.restart(own, spec);
        }
        long restarted = System.nanoTime();
        // each PDP sent its PEPs away when it was cut off: they come back once it serves again
        try (BlockingPep probe = accepted(b, "proxy-b-2");
            BlockingPep terminal2 = accepted(a, "tpe-1")) {
          await() // refused while A settles
              .pollInterval(Duration.ofMillis(100))
              .alias("a LOGIN through A works")
              .until(() -> terminal2.ask("login-bob-2", login("bob", 2)));
          // for longer than the ensemble keeps the old sessions: alice has no session at B (a real
          // wait is the thing under test: nothing may grant from a lost session meanwhile)
          int asked = 0;
          while (System.nanoTime() - restarted < TimeUnit.SECONDS.toNanos(12)) {
            assertFalse(
                probe.ask("probe-" + asked++, read("alice", "intel-db")),
                "B granted ACCESS from what A's lost session held (probe " + asked + ")");
            Thread.sleep(100); // the real wait under test, probed ten times a second
          }
          probe.forgetPushed();
          awaitInstalled(probe, read("bob", "intel-db")); // bob's new LOGIN lasts
          try (ZooKeeperStateStore peer =
              ZooKeeperStateStore.connect(
                  new ZooKeeperStateStore.Settings(
                      own.getConnectString(), ns, Duration.ofSeconds(6), FleetEnsemble.IDENTITY))) {
            assertEquals(2, peer.children(FleetMembers.ROOT).size(), "both are members again");
          }
        }
      }
    }
  }

  /** A PEP accepted by {@code pdp}, which redirects new PEPs while it is cut off (up to 30 s). */
  static BlockingPep accepted(PdpServer pdp, String pepId) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> new BlockingPep(pdp.address(), MLS, pepId), p -> p != null);
  }
}
