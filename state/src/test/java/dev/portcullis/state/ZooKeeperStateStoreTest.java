package dev.portcullis.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
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
      try (StateStore intruder = connect(namespace, "intruder:guess")) {
        StoreException e =
            assertThrows(StoreException.class, () -> intruder.read("/sessions/alice"));
        assertTrue(e.getMessage().contains("ACL"), e.getMessage());
        assertThrows(StoreException.class, () -> intruder.replace("/sessions/alice", b("x"), 0));
        assertThrows(
            StoreException.class,
            () -> intruder.create("/sessions/mallory", b("x"), Lifetime.DURABLE));
        assertTrue(!e.getMessage().contains("guess"), "no secret in the message");
      }
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
        boolean written = false;
        for (int i = 0; i < 100 && !written; i++) {
          try {
            written = s.replace("/policy/v", b(role), version);
          } catch (StoreException e) {
            Thread.sleep(200); // the client moves to another server, or the quorum elects
          }
        }
        assertTrue(written, "a write after losing the server " + role);
        version++;
        assertArrayEquals(b(role), s.readLatest("/policy/v").orElseThrow().data());
        cluster.restartServer(victim);
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
}
