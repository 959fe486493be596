package dev.portcullis.state;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.state.StateStore.LeasedReads;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.support.LogLines;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reads under a lease that writes revoke (issue 44 item 5), on a real 3-node ensemble, the writer
 * and the reader each on a server of their own: a read after a revocation never sees what was there
 * before it, whether the reader confirms the change or is waited out; and a read of an entry that
 * has not changed goes nowhere.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperLeasedReadsTest {
  static TestingCluster cluster;
  private static int namespaces;

  @BeforeAll
  static void startEnsemble() throws Exception {
    cluster = Ensembles.started();
  }

  @AfterAll
  static void stopEnsemble() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A writer on the ensemble's first server and a reader on its second, in a new namespace. */
  static ZooKeeperStateStore[] pair() throws Exception {
    List<InstanceSpec> servers = new ArrayList<>(cluster.getInstances());
    String ns = "/portcullis/leases" + (namespaces++);
    ZooKeeperStateStore[] two = new ZooKeeperStateStore[2];
    for (int i = 0; i < 2; i++) {
      two[i] =
          ZooKeeperStateStore.connect(
              new ZooKeeperStateStore.Settings(
                  "127.0.0.1:" + servers.get(i).getPort(),
                  ns,
                  Duration.ofSeconds(6),
                  "fleet:s3cret"));
    }
    return two;
  }

  /** A writer, a reader with leased reads of /s, and the entry /s/k holding {@code first}. */
  record Two(ZooKeeperStateStore writer, ZooKeeperStateStore reader, ZooKeeperLeasedReads reads)
      implements AutoCloseable {
    @Override
    public void close() {
      reads.close();
      reader.close();
      writer.close();
    }
  }

  static Two two(Duration lease, String first) throws Exception {
    ZooKeeperStateStore[] p = pair();
    Two two = new Two(p[0], p[1], (ZooKeeperLeasedReads) p[1].leasedReads("/s", lease));
    p[0].create("/s/k", b(first), Lifetime.DURABLE);
    return two;
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(Optional<Versioned> v) {
    return v.map(x -> new String(x.data(), StandardCharsets.UTF_8)).orElse("(none)");
  }

  /** Reads until the view answers without the store (it is filled a moment after a read). */
  static void filled(ZooKeeperLeasedReads r, String path) {
    await()
        .alias("the view holds " + path)
        .until(
            () -> {
              long before = r.storeReads();
              r.read(path);
              return r.storeReads() == before;
            });
  }

  @Test
  void aReadAfterARevocationSeesTheWriteAndAnUnchangedEntryIsReadFromMemory() throws Exception {
    Duration lease = Duration.ofSeconds(2);
    long slowest = 0; // the longest revocation: a reader that answers is not waited out
    try (Two two = two(lease, "0")) {
      ZooKeeperStateStore writer = two.writer();
      ZooKeeperLeasedReads r = two.reads();
      for (int i = 1; i <= 200; i++) {
        String path = "/s/k";
        if (i % 10 == 0) { // a deletion and a creation too: what a LOGOUT and a LOGIN write
          assertTrue(writer.delete(path, Versioned.ANY));
          writer.revokeLeases("/s", path, lease);
          assertEquals("(none)", text(r.read(path)), "round " + i + ": read the deleted entry");
          assertTrue(writer.create(path, b(Integer.toString(i)), Lifetime.DURABLE));
        } else {
          Versioned now = writer.read(path).orElseThrow();
          assertTrue(writer.replace(path, b(Integer.toString(i)), now.version()));
        }
        long t0 = System.nanoTime();
        writer.revokeLeases("/s", path, lease);
        slowest = Math.max(slowest, System.nanoTime() - t0);
        assertEquals(Integer.toString(i), text(r.read(path)), "round " + i + ": an older write");
      }
      assertTrue(
          slowest < lease.toNanos(),
          "a reader that answers is not waited out: slowest revocation "
              + slowest / 1_000_000
              + " ms");
      filled(r, "/s/k");
      long before = r.storeReads();
      for (int i = 0; i < 1_000; i++) {
        assertEquals("200", text(r.read("/s/k")));
      }
      assertTrue(r.storeReads() - before <= 1, "unchanged: read from memory");
    }
  }

  /**
   * A reader that cannot answer (its ZooKeeper event thread held: a pause, a stall) neither
   * confirms the change nor renews its lease: the writer waits until that lease must have ended,
   * and the reader, its lease over, asks the store. Without the wait, or with a lease renewed past
   * the change, the read below answers the old value from memory.
   */
  @Test
  void aReaderThatDoesNotAnswerIsWaitedOutAndThenReadsTheStore() throws Exception {
    Duration lease = Duration.ofSeconds(1);
    try (Two two = two(lease, "old")) {
      ZooKeeperStateStore writer = two.writer();
      ZooKeeperStateStore reader = two.reader();
      ZooKeeperLeasedReads r = two.reads();
      writer.create("/block", b("0"), Lifetime.DURABLE);
      filled(r, "/s/k");
      assertEquals("old", text(r.read("/s/k")));

      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch held = new CountDownLatch(1);
      ZooKeeper zk = reader.curator().getZookeeperClient().getZooKeeper();
      String block = ZKPaths.makePath(reader.curator().getNamespace(), "/block");
      zk.getData(
          block,
          e -> { // runs on the reader's event thread, and holds it
            held.countDown();
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
              Thread.currentThread().interrupt();
            }
          },
          null);
      try (LogLines log = LogLines.of(ZooKeeperLeasedReads.class)) {
        writer.replace("/block", b("1"), 0);
        assertTrue(held.await(10, TimeUnit.SECONDS), "the reader's event thread is held");
        Versioned k = writer.read("/s/k").orElseThrow();
        assertTrue(writer.replace("/s/k", b("new"), k.version()));
        long t0 = System.nanoTime();
        writer.revokeLeases("/s", "/s/k", lease);
        long waited = System.nanoTime() - t0;
        assertEquals("new", text(r.read("/s/k")), "a read after the revocation saw the old value");
        assertTrue(
            waited >= lease.toNanos(),
            "waited " + waited / 1_000_000 + " ms for a reader that did not answer");
        assertTrue(
            log.warnings().stream().anyMatch(l -> l.contains("did not confirm change")),
            log.warnings().toString());
      } finally {
        release.countDown();
      }
      // released: it catches up, confirms, and serves from memory again
      filled(r, "/s/k");
      assertEquals("new", text(r.read("/s/k")));
    }
  }

  /** A reader that is gone (its session closed) is not waited for: its entry went with it. */
  @Test
  void aReaderThatStoppedIsNotWaitedFor() throws Exception {
    ZooKeeperStateStore[] p = pair();
    Duration lease = Duration.ofSeconds(5);
    try (ZooKeeperStateStore writer = p[0]) {
      try (ZooKeeperStateStore reader = p[1];
          LeasedReads leased = reader.leasedReads("/s", lease)) {
        writer.create("/s/k", b("0"), Lifetime.DURABLE);
        assertEquals("0", text(leased.read("/s/k")));
      }
      writer.replace("/s/k", b("1"), 0);
      long t0 = System.nanoTime();
      writer.revokeLeases("/s", "/s/k", lease);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < lease.toMillis() / 2, "waited " + ms + " ms for a reader that stopped");
    }
  }

  @Test
  void zxidsRoundTripAndNonsenseIsZero() {
    assertEquals(
        0x1_0000_0042L, ZooKeeperLeasedReads.zxid(ZooKeeperLeasedReads.zxid(0x1_0000_0042L)));
    assertEquals(0, ZooKeeperLeasedReads.zxid(b("zz")));
    assertEquals(0, ZooKeeperLeasedReads.zxid(new byte[0]));
  }
}
