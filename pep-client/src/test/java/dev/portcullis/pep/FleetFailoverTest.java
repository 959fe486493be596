package dev.portcullis.pep;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.state.Ensembles;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fleet of three PDPs on a real ZooKeeper ensemble; 1,000 PEPs, all on one PDP, which then stops:
 * every PEP goes on to another member of its list, sends its request state again, and every
 * decision comes back the same.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FleetFailoverTest {
  static final int MLS = 0xC0A6;
  static final int PEPS = 1_000;

  @TempDir Path dir;

  PdpServer pdp(String zk, String name) throws Exception {
    return pdp(zk, name, "");
  }

  PdpServer pdp(String zk, String name, String fleet) throws Exception {
    Path cfg = dir.resolve("pdp-" + name + ".xml");
    Files.writeString(
        cfg,
        "<pdp><state store=\"zookeeper\" connect=\""
            + zk
            + "\" namespace=\"/portcullis/failover\" session-timeout=\"PT6S\""
            + " auth-file=\"zk.secret\"/>"
            + fleet
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<limits max-connections=\"4096\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/>"
            + "<stats interval=\"PT1H\"/></pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  void files() throws Exception {
    Files.copy(Path.of("../config/policy-mls.xml"), dir.resolve("policy-mls.xml"));
    DurableFiles.write(dir.resolve("zk.secret"), "portcullis:failover-test\n".getBytes());
  }

  @Test
  void aLoadedPdpRedirectsNewPepsAndADrainingOneSendsItsPepsAway() throws Exception {
    files();
    AccessRequest read = AccessRequest.access("alice", "intel-db", AccessMode.READ);
    try (TestingCluster zk = Ensembles.started()) {
      List<PepClient> peps = new ArrayList<>();
      try (PdpServer a = pdp(zk.getConnectString(), "a", "<fleet redirect-above=\"2\"/>");
          PdpServer b = pdp(zk.getConnectString(), "b")) {
        try (PepClient terminal =
            PepClient.builder().pdp(b.address()).pepId("tpe-1").clientType(MLS).build()) {
          terminal.open().get(10, TimeUnit.SECONDS);
          terminal
              .request("login", ctx(), AccessRequest.login("alice", 2, List.of("NATO")))
              .get(10, TimeUnit.SECONDS);
          for (int i = 0; i < 4; i++) {
            PepClient p =
                PepClient.builder()
                    .pdps(List.of(a.address(), b.address()))
                    .pepId("proxy-" + i)
                    .clientType(MLS)
                    .build();
            peps.add(p);
            p.open().get(10, TimeUnit.SECONDS);
            // A's view of alice's session (made on B) follows the store within milliseconds
            await()
                .pollInterval(Duration.ofMillis(20))
                .alias("proxy-" + i + ": read allowed")
                .until(() -> p.request("read", ctx(), read).get(10, TimeUnit.SECONDS).granted());
          }
          // A serves two (the terminal is on B), the next ones were sent to B
          assertEquals(a.address(), peps.get(0).pdp());
          assertEquals(a.address(), peps.get(1).pdp());
          assertEquals(b.address(), peps.get(2).pdp(), "third PEP: over A's load, redirected");
          assertEquals(b.address(), peps.get(3).pdp());
          // draining A sends its PEPs to B, where their requests are decided again
          assertEquals(0, a.drain(Duration.ofSeconds(10)), "A drained");
          for (PepClient p : peps) {
            await().alias("moved to B").until(() -> p.isOpen() && p.pdp().equals(b.address()));
            assertTrue(waitDecided(p, "read").get("read").granted());
          }
        }
      } finally {
        for (PepClient p : peps) {
          p.close();
        }
      }
    }
  }

  @Test
  void thePepsOfAStoppedPdpAreReHomedWithEveryDecisionKept() throws Exception {
    files();
    AccessRequest read = AccessRequest.access("alice", "intel-db", AccessMode.READ);
    AccessRequest mail = AccessRequest.access("alice", "mail", AccessMode.WRITE);
    try (TestingCluster zk = Ensembles.started()) {
      EventLoopGroup loops = Transport.NIO.group(2);
      List<PepClient> peps = new ArrayList<>();
      try (PdpServer b = pdp(zk.getConnectString(), "b");
          PdpServer c = pdp(zk.getConnectString(), "c")) {
        PdpServer a = pdp(zk.getConnectString(), "a");
        try (PepClient terminal =
            PepClient.builder().pdp(b.address()).pepId("tpe-1").clientType(MLS).build()) {
          terminal.open().get(10, TimeUnit.SECONDS);
          assertTrue(
              terminal
                  .request("login", ctx(), AccessRequest.login("alice", 2, List.of("NATO")))
                  .get(10, TimeUnit.SECONDS)
                  .granted());
          for (int i = 0; i < PEPS; i++) {
            InetSocketAddress second = i % 2 == 0 ? b.address() : c.address();
            InetSocketAddress third = i % 2 == 0 ? c.address() : b.address();
            PepClient p =
                PepClient.builder()
                    .pdps(List.of(a.address(), second, third))
                    .pepId("proxy-" + i)
                    .clientType(MLS)
                    .eventLoop(loops.next())
                    .reconnect(Duration.ofMillis(100), Duration.ofSeconds(2))
                    .build();
            peps.add(p);
            p.open().get(10, TimeUnit.SECONDS);
          }
          // each PEP: one access allowed (read, B's session of alice seen through the fleet)
          // and one refused (BLP: no write down from SECRET to mail)
          List<CompletableFuture<PepDecision>> asked = new ArrayList<>();
          for (PepClient p : peps) {
            asked.add(p.request("read", ctx(), read));
            asked.add(p.request("mail", ctx(), mail));
          }
          for (int i = 0; i < asked.size(); i++) {
            assertEquals(i % 2 == 0, asked.get(i).get(30, TimeUnit.SECONDS).granted(), "" + i);
          }
          a.close(); // every PEP of A loses its PDP
          await()
              .atMost(Duration.ofSeconds(60))
              .alias("every PEP re-homed")
              .until(() -> peps.stream().allMatch(p -> p.isOpen() && !p.pdp().equals(a.address())));
          int onB = 0;
          for (PepClient p : peps) {
            assertNotEquals(a.address(), p.pdp());
            onB += p.pdp().equals(b.address()) ? 1 : 0;
            // the request states were sent again and decided again the same way
            Map<String, PepDecision> installed = waitDecided(p, "read", "mail");
            assertTrue(installed.get("read").granted(), p.pdp() + ": read");
            assertTrue(!installed.get("mail").granted(), p.pdp() + ": mail");
          }
          assertEquals(PEPS / 2, onB, "each PEP went to the next PDP of its own list");
        }
      } finally {
        for (PepClient p : peps) {
          p.close();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      }
    }
  }

  static Context ctx() {
    return new Context(Context.R_INCOMING, 0);
  }

  /** The PEP's installed decisions once both requests have been decided by its new PDP. */
  static Map<String, PepDecision> waitDecided(PepClient p, String... handles) {
    return await()
        .alias(p + ": decisions back")
        .until(
            () -> p.installed().get(10, TimeUnit.SECONDS),
            m -> Arrays.stream(handles).allMatch(h -> m.get(h) != null));
  }
}
