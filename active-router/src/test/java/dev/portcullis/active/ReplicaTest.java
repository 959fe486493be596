package dev.portcullis.active;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.source.Source;
import dev.portcullis.state.Ensembles;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.ZooKeeperStateStore;
import dev.portcullis.support.DurableFiles;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authorization Server replicas sharing Kci epochs and granted flows on a real 3-node ZooKeeper
 * ensemble: a flow is granted at most once per epoch across the replicas (nonce safety), a rotation
 * on one is taken by the other, and the store never sees Kci in clear.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicaTest {
  @TempDir Path tmp;

  /** The system clock, moved on by {@code offset}. */
  static final class Shifted extends Clock {
    volatile Duration offset = Duration.ZERO;

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public java.time.Instant instant() {
      return java.time.Instant.now().plus(offset);
    }
  }

  @Test
  void replicasShareEpochsAndGrantAFlowOncePerEpoch() throws Exception {
    try (TestingCluster zk = Ensembles.started()) {
      DurableFiles.write(
          tmp.resolve("zk.secret"), "rosa:replica-test\n".getBytes(StandardCharsets.US_ASCII));
      byte[] kek = new byte[32];
      new SecureRandom().nextBytes(kek);
      DurableFiles.write(
          tmp.resolve("kek.hex"),
          (HexFormat.of().formatHex(kek) + "\n").getBytes(StandardCharsets.US_ASCII));
      RosaConfig config =
          TestDomain.config(
              tmp,
              xml ->
                  xml.replace(
                      "<auth-server ",
                      "<state store=\"zookeeper\" connect=\""
                          + zk.getConnectString()
                          + "\" namespace=\"/portcullis/rosa\" auth-file=\"zk.secret\""
                          + " kek-file=\"kek.hex\"/>\n  <auth-server "));
      Shifted clock = new Shifted(); // replica one's clock, moved past a rotation later
      Domain domain = new Domain(config, clock);
      try (CodeServer cs = domain.codeServer();
          CodeServer cs2 =
              new CodeServer(
                  config,
                  domain.pki(),
                  new InetSocketAddress("127.0.0.1", 0),
                  Files.createDirectories(tmp.resolve("cs2")),
                  HttpsEndpoint.Limits.DEFAULT,
                  domain.fleetKci());
          AuthServer one = domain.authServer();
          AuthServer two =
              new AuthServer(
                  config,
                  domain.pki(),
                  domain.registry(),
                  new CodeServerClient(
                      config.codeServer().listen(),
                      domain.pki().clientContext(RosaConfig.AUTH_SERVER_IDENTITY)),
                  Clock.systemUTC(),
                  new InetSocketAddress("127.0.0.1", 0),
                  Files.createDirectories(tmp.resolve("two")).resolve("auth-audit.jsonl"),
                  HttpsEndpoint.Limits.DEFAULT,
                  domain.fleetKci())) {
        assertTrue(cs.address() != null, "the Code Server both replicas store secrets at");
        assertEquals(one.epoch("counter"), two.epoch("counter"), "one shared epoch");
        List<Source> sources =
            List.of(
                domain.source("alice"),
                new Source(
                    two.address(),
                    domain.pki().clientContext("alice"),
                    "alice",
                    domain.pki().privateKey("alice"),
                    Clock.systemUTC()));
        long now = System.currentTimeMillis() / 1000;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
          for (int round = 0; round < 10; round++) {
            long sst = now + 5 + round;
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> tries = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
              Source s = sources.get(t % 2);
              tries.add(
                  pool.submit(
                      () -> {
                        go.await();
                        try {
                          s.request(
                                  "counter",
                                  "127.0.0.1",
                                  "127.0.0.1",
                                  sst,
                                  sst + 60,
                                  MacAlgorithm.HMAC_SHA256_128,
                                  false)
                              .destroy();
                          return 200;
                        } catch (Source.RefusedException e) {
                          return e.status();
                        }
                      }));
            }
            go.countDown();
            int granted = 0;
            for (Future<Integer> f : tries) {
              int status = f.get(30, TimeUnit.SECONDS);
              assertTrue(status == 200 || status == 409, "status " + status);
              granted += status == 200 ? 1 : 0;
            }
            assertEquals(1, granted, "round " + round + ": granted once across both replicas");
            if (one.epoch("counter") != two.epoch("counter")) {
              break; // a rotation came between: the next round is in a new epoch anyway
            }
          }
        } finally {
          pool.shutdownNow();
        }
        // a Code Server replica the Authorization Servers never talk to serves the same secret
        int code = config.codes().get("counter").id();
        int epoch = one.epoch("counter");
        byte[] direct =
            new CodeServerClient(cs.address(), domain.pki().clientContext("ar-1"))
                .secret(code, epoch)
                .get(10, TimeUnit.SECONDS);
        byte[] replica =
            new CodeServerClient(cs2.address(), domain.pki().clientContext("ar-1"))
                .secret(code, epoch)
                .get(10, TimeUnit.SECONDS);
        assertArrayEquals(direct, replica, "the same Kci from either Code Server");
        // a rotation on one replica is taken by the other
        int before = one.epoch("counter");
        clock.offset = Duration.ofHours(2); // one rotation period (PT1H) and more later
        one.rotate();
        assertTrue(one.epoch("counter") != before, "a new epoch");
        int[] listed =
            new CodeServerClient(cs2.address(), domain.pki().clientContext("ar-1"))
                .epochs(code)
                .get(10, TimeUnit.SECONDS);
        int newest = one.epoch("counter");
        assertTrue(
            Arrays.stream(listed).anyMatch(e -> e == newest),
            "the other Code Server lists the new epoch");
        await()
            .alias("the other replica takes the rotation")
            .until(() -> two.epoch("counter") == one.epoch("counter"));
        // the store holds Kci wrapped: nothing in it equals or contains the prepared secret's
        // source, and another KEK cannot unwrap it
        try (StateStore look =
            ZooKeeperStateStore.connect(
                new ZooKeeperStateStore.Settings(
                    zk.getConnectString(),
                    "/portcullis/rosa",
                    Duration.ofSeconds(6),
                    "rosa:replica-test"))) {
          for (String e : look.children("/active/epochs/" + Integer.toUnsignedString(code))) {
            byte[] v = look.read("/active/epochs/" + code + "/" + e).orElseThrow().data();
            assertEquals(4 + 12 + 32 + 16, v.length, "each epoch's Kci wrapped too");
          }
          for (String c : look.children("/active/kci")) {
            byte[] v = look.read("/active/kci/" + c).orElseThrow().data();
            assertEquals(4 + 12 + 32 + 16, v.length, "epoch, IV, wrapped 32-byte Kci, tag");
            assertFalse(new String(v, StandardCharsets.ISO_8859_1).contains("counter"), "opaque");
          }
        }
      }
    }
  }
}
