package dev.portcullis.pdp;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.state.StateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** One-time enrolment credentials in a fleet: single use across PDPs, on a real ensemble. */
@ExtendWith(FleetEnsemble.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FleetCredentialsTest {
  private static final Digester SHA256 =
      IntegrityKeys.registry(List.of()).digester(Algorithm.SHA_256);

  @TempDir Path dir;

  @Test
  void twoPdpsRacingOneCredentialLetExactlyOneWin() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (StateStore a = FleetEnsemble.member(ns);
        StateStore b = FleetEnsemble.member(ns)) {
      CredentialStore onA = CredentialStore.open(dir.resolve("a"), SHA256, a);
      CredentialStore onB = CredentialStore.open(dir.resolve("b"), SHA256, b);
      assertFalse(Files.exists(dir.resolve("a/valid")), "no local records in a fleet");
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        for (int round = 0; round < 20; round++) {
          String id = onA.issue("gw-" + round, Duration.ofHours(1)).id();
          // B reads with a sync first, but ZooKeeper's sync is not a quorum operation
          // (ZOOKEEPER-1675): a member may miss another's write for a moment; one loaded build
          // here saw that once. Known within a bounded time is the guarantee (docs/fleet.md).
          await().until(() -> onB.lookup(id) != null);
          assertNotNull(onB.lookup(id), "issued through A, known to B");
          assertEquals(CredentialStore.State.VALID, onB.state(id));
          CountDownLatch go = new CountDownLatch(1);
          List<Future<Boolean>> tries = new ArrayList<>();
          for (int t = 0; t < 8; t++) {
            CredentialStore pdp = t % 2 == 0 ? onA : onB;
            tries.add(
                pool.submit(
                    () -> {
                      go.await();
                      return pdp.consume(id);
                    }));
          }
          go.countDown();
          int won = 0;
          for (Future<Boolean> f : tries) {
            won += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
          }
          assertEquals(1, won, "round " + round);
          assertEquals(CredentialStore.State.USED, onA.state(id));
          assertEquals(CredentialStore.State.USED, onB.state(id));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aPdpDyingRightAfterTakingACredentialLeavesItUsed() throws Exception {
    String ns = FleetEnsemble.namespace();
    String id;
    try (StateStore a = FleetEnsemble.member(ns)) {
      CredentialStore onA = CredentialStore.open(dir.resolve("a"), SHA256, a);
      id = onA.issue("gw-1", Duration.ofHours(1)).id();
      assertTrue(onA.consume(id));
      // A stops here, before issuing the certificate: the safe side
    }
    try (StateStore b = FleetEnsemble.member(ns)) {
      CredentialStore onB = CredentialStore.open(dir.resolve("b"), SHA256, b);
      assertEquals(CredentialStore.State.USED, onB.state(id));
      assertFalse(onB.consume(id), "never usable twice");
      assertFalse(onB.consume("otc-0000000000000000"), "never issued");
    }
  }

  @Test
  void aCredentialCarriesOneTunnelFleetWide() throws Exception {
    String ns = FleetEnsemble.namespace();
    try (StateStore a = FleetEnsemble.member(ns);
        StateStore b = FleetEnsemble.member(ns)) {
      CredentialStore onA = CredentialStore.open(dir.resolve("a"), SHA256, a);
      CredentialStore onB = CredentialStore.open(dir.resolve("b"), SHA256, b);
      String id = onA.issue("alice", Duration.ofHours(1)).id();
      assertTrue(onA.consume(id));
      assertTrue(onA.spendOnTunnel(id, "t-1"));
      assertFalse(onB.spendOnTunnel(id, "t-2"), "spent at A: spent for B");
    }
  }
}
