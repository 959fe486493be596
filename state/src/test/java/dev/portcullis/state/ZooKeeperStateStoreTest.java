package dev.portcullis.state;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.state.StateStore.Connection;
import dev.portcullis.state.StateStore.Lifetime;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The contract, and the faults a fleet meets, against a real 3-node ensemble in this process. */
class ZooKeeperStateStoreTest extends StateStoreContract {
  static TestingCluster cluster;
  private static int namespaces;

  @BeforeAll
  static void startEnsemble() throws Exception {
    cluster = Ensembles.started(); // loopback, free ports
  }

  @AfterAll
  static void stopEnsemble() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private String namespace;

  static ZooKeeperStateStore connect(String namespace, String digest) throws StoreException {
    return ZooKeeperStateStore.connect(
        new ZooKeeperStateStore.Settings(
            cluster.getConnectString(), namespace, Duration.ofSeconds(6), digest));
  }

  @Override
  StateStore store() throws Exception {
    namespace = "/portcullis/test" + (namespaces++);
    return connect(namespace, "fleet:s3cret");
  }

  @Override
  StateStore peer(StateStore of) throws Exception {
    return connect(namespace, "fleet:s3cret");
  }

  @Test
  void anotherIdentityCannotReadOrWriteTheNamespace() throws Exception {
    try (StateStore s = store()) {
      s.create("/sessions/alice", b("secret"), Lifetime.DURABLE);
      // refused at connect: a store says it is alive in its namespace before it serves
      StoreException e =
          assertThrows(StoreException.class, () -> connect(namespace, "intruder:guess"));
      assertTrue(e.getMessage().contains("ACL"), e.getMessage());
      assertTrue(!e.getMessage().contains("guess"), "no secret in the message");
      assertEquals("secret", new String(s.read("/sessions/alice").orElseThrow().data()));
    }
  }

  @Test
  void anExpiredSessionEndsItsLeasesFleetWide() throws Exception {
    ZooKeeperStateStore owner = (ZooKeeperStateStore) store();
    try (StateStore watcher = peer(owner)) {
      BlockingQueue<Connection> states = new LinkedBlockingQueue<>();
      owner.onConnectionChange(states::add);
      BlockingQueue<StoreEvent> q = new LinkedBlockingQueue<>();
      watcher.watch("/sessions", q::add);
      assertEquals(StoreEvent.Kind.READY, next(q).kind());
      owner.create("/sessions/alice", b("level=SECRET"), Lifetime.LEASED);
      assertEquals(StoreEvent.Kind.PUT, next(q).kind());
      owner.curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
      StoreEvent gone = next(q);
      assertEquals(StoreEvent.Kind.REMOVED, gone.kind());
      assertEquals("/sessions/alice", gone.path());
      Connection c;
      do {
        c = states.poll(20, TimeUnit.SECONDS);
      } while (c != null && c != Connection.LOST);
      assertEquals(Connection.LOST, c, "the owner hears its session ended");
    } finally {
      owner.close();
    }
  }

  /** "leader" or "follower", from ZooKeeper's {@code srvr} command ("" if it does not answer). */
  static String mode(int port) {
    try (Socket sock = new Socket("127.0.0.1", port)) {
      sock.setSoTimeout(5_000);
      sock.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
      String out = new String(sock.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      for (String line : out.split("\n")) {
        if (line.startsWith("Mode: ")) {
          return line.substring(6).trim();
        }
      }
    } catch (IOException e) {
      // a killed server
    }
    return "";
  }

  @Test
  void theStoreServesOnThroughAFollowerAndThenTheLeaderGoingDown() throws Exception {
    try (StateStore s = store()) {
      s.create("/policy/v", b("0"), Lifetime.DURABLE);
      int version = 0;
      for (String role : new String[] {"follower", "leader"}) {
        InstanceSpec victim = null;
        for (TestingZooKeeperServer z : cluster.getServers()) {
          if (mode(z.getInstanceSpec().getPort()).equals(role)) {
            victim = z.getInstanceSpec();
          }
        }
        assertTrue(victim != null, "a server " + role);
        cluster.killServer(victim);
        // writes go on with two of three (ZooKeeper's quorum), after the election if any
        int expected = version;
        await() // the client moves to another server, or the quorum elects
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(200))
            .ignoreException(StoreException.class)
            .alias("a write after losing the server " + role)
            .until(() -> s.replace("/policy/v", b(role), expected));
        version++;
        assertArrayEquals(b(role), s.readLatest("/policy/v").orElseThrow().data());
        Ensembles.restart(cluster, victim);
      }
      assertEquals(2, s.read("/policy/v").orElseThrow().version(), "nothing lost");
    }
  }

  @Test
  void aLinearizableReadSeesAWriteMadeThroughAnotherServer() throws Exception {
    List<InstanceSpec> servers = new ArrayList<>(cluster.getInstances());
    String ns = "/portcullis/test" + (namespaces++);
    String one = "127.0.0.1:" + servers.get(0).getPort(); // each member on its own server
    String two = "127.0.0.1:" + servers.get(1).getPort();
    try (StateStore writer =
            ZooKeeperStateStore.connect(
                new ZooKeeperStateStore.Settings(one, ns, Duration.ofSeconds(6), "fleet:s3cret"));
        StateStore reader =
            ZooKeeperStateStore.connect(
                new ZooKeeperStateStore.Settings(two, ns, Duration.ofSeconds(6), "fleet:s3cret"))) {
      writer.create("/v", b("0"), Lifetime.DURABLE);
      for (int i = 1; i <= 300; i++) {
        assertTrue(writer.replace("/v", b(Integer.toString(i)), i - 1));
        Versioned seen = reader.readLatest("/v").orElseThrow();
        assertEquals(i, seen.version(), "read " + i + " saw an older write");
      }
    }
  }

  /**
   * docs/security.md, principle 8. A member's session is lost and a new one made: its old session
   * lives on in the ensemble until the ensemble's timer ends it (20 s here), and with it the
   * entries it leased. The member deletes them as it comes back, so the fleet sees them go at once
   * (they used to stay the whole timeout, and others decided from them); the old session is not
   * live for anyone; and an entry held by a session that has not shown itself alive is never
   * written into: it is made anew under the writer's session.
   */
  @Test
  void aRenewedSessionDeletesWhatItsLostOneLeasedAndNobodyTrustsTheLostOne() throws Exception {
    String ns = "/portcullis/test" + (namespaces++);
    Duration timeout = Duration.ofSeconds(20);
    try (ZooKeeperStateStore owner =
            ZooKeeperStateStore.connect(
                new ZooKeeperStateStore.Settings(
                    cluster.getConnectString(), ns, timeout, "fleet:s3cret"));
        ZooKeeperStateStore watcher =
            ZooKeeperStateStore.connect(
                new ZooKeeperStateStore.Settings(
                    cluster.getConnectString(), ns, timeout, "fleet:s3cret"))) {
      BlockingQueue<StoreEvent> q = new LinkedBlockingQueue<>();
      watcher.watch("/sessions", q::add);
      assertEquals(StoreEvent.Kind.READY, next(q).kind());
      owner.create("/sessions/alice", b("SECRET"), Lifetime.LEASED);
      StoreEvent put = next(q);
      long lost = put.value().owner();
      assertTrue(lost != Versioned.DURABLE, "a leased entry names its holder");
      assertTrue(watcher.live(lost), "the owner's session is alive");
      assertTrue(owner.live(lost));

      BlockingQueue<Connection> states = new LinkedBlockingQueue<>();
      owner.onConnectionChange(states::add);
      long t0 = System.nanoTime();
      owner.expireSession(); // the client gives the session up; the ensemble keeps it 20 s
      assertEquals(Connection.LOST, states.poll(10, TimeUnit.SECONDS));
      assertEquals(Connection.RECONNECTED, states.poll(10, TimeUnit.SECONDS));
      StoreEvent gone = next(q);
      assertEquals(StoreEvent.Kind.REMOVED, gone.kind());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < 10_000, "deleted as the owner came back, not by the timer: " + ms + " ms");
      assertFalse(owner.live(lost), "the lost session is not the owner's any more");
      await().until(() -> !watcher.live(lost)); // its /_live entry is deleted with the rest
      assertFalse(watcher.live(lost), "nor anyone's");

      // a session that never said it is alive (a client of another kind): not written into
      try (CuratorFramework raw =
          CuratorFrameworkFactory.builder()
              .connectString(cluster.getConnectString())
              .namespace(ns.substring(1))
              .retryPolicy(new RetryOneTime(100))
              .authorization("digest", "fleet:s3cret".getBytes(StandardCharsets.UTF_8))
              .aclProvider(
                  new ACLProvider() {
                    @Override
                    public List<ACL> getDefaultAcl() {
                      return ZooDefs.Ids.CREATOR_ALL_ACL;
                    }

                    @Override
                    public List<ACL> getAclForPath(String path) {
                      return ZooDefs.Ids.CREATOR_ALL_ACL;
                    }
                  })
              .build()) {
        raw.start();
        raw.blockUntilConnected(10, TimeUnit.SECONDS);
        raw.create().withMode(CreateMode.EPHEMERAL).forPath("/sessions/bob", b("UNCLASSIFIED"));
        // another client's write: the watcher's server catches up first (sync, then read)
        long stranger = watcher.readLatest("/sessions/bob").orElseThrow().owner();
        assertFalse(watcher.live(stranger), "never seen alive");
        assertTrue(watcher.putLeased("/sessions/bob", b("SECRET")));
        Versioned now = watcher.read("/sessions/bob").orElseThrow();
        assertArrayEquals(b("SECRET"), now.data());
        assertTrue(now.owner() != stranger, "made anew under the writer's own session");
        assertTrue(watcher.live(now.owner()));
        // and one held by a live session is written in place, its lease staying where it is
        owner.create("/sessions/carol", b("U"), Lifetime.LEASED);
        long carols = owner.read("/sessions/carol").orElseThrow().owner();
        await().until(() -> watcher.live(carols)); // the owner's new session says it is alive
        watcher.readLatest("/sessions/carol"); // caught up with the owner's write
        assertTrue(watcher.putLeased("/sessions/carol", b("S")));
        assertEquals(carols, watcher.read("/sessions/carol").orElseThrow().owner());
      }
    }
  }
}
