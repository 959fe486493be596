package dev.portcullis.state;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.state.StateStore.Lifetime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What every {@link StateStore} must do, whatever keeps the state. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class StateStoreContract {

  /** A fresh, empty store. */
  abstract StateStore store() throws Exception;

  /** A second handle on the same state (another member), or the same store where there is one. */
  abstract StateStore peer(StateStore of) throws Exception;

  static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  static StoreEvent next(BlockingQueue<StoreEvent> q) throws InterruptedException {
    StoreEvent e = q.poll(20, TimeUnit.SECONDS);
    if (e == null) {
      throw new AssertionError("no store event in 20 s");
    }
    return e;
  }

  @Test
  void versionedCompareAndSet() throws Exception {
    try (StateStore s = store()) {
      assertTrue(s.read("/a/b").isEmpty());
      assertTrue(s.create("/a/b", b("one"), Lifetime.DURABLE));
      assertFalse(s.create("/a/b", b("two"), Lifetime.DURABLE), "created twice");
      Versioned v = s.read("/a/b").orElseThrow();
      assertEquals("one", new String(v.data(), UTF_8));
      assertFalse(s.replace("/a/b", b("x"), v.version() + 1), "a version not read");
      assertTrue(s.replace("/a/b", b("two"), v.version()));
      assertFalse(s.replace("/a/b", b("three"), v.version()), "a stale version");
      Versioned w = s.readLatest("/a/b").orElseThrow();
      assertEquals(v.version() + 1, w.version());
      assertEquals("two", new String(w.data(), UTF_8));
      assertFalse(s.replace("/nothing", b("x"), 0));
      assertFalse(s.delete("/a/b", v.version()), "deleted at a stale version");
      assertTrue(s.delete("/a/b", w.version()));
      assertFalse(s.delete("/a/b", Versioned.ANY));
      assertTrue(s.read("/a/b").isEmpty());
      assertTrue(s.create("/a/c", b(""), Lifetime.DURABLE));
      assertThrows(StoreException.class, () -> s.delete("/a", Versioned.ANY), "has children");
    }
  }

  @Test
  void childrenAreListedSorted() throws Exception {
    try (StateStore s = store()) {
      for (String n : new String[] {"m", "b", "z", "a"}) {
        assertTrue(s.create("/list/" + n, b(n), Lifetime.DURABLE));
      }
      assertTrue(s.create("/list/b/deeper", b(""), Lifetime.DURABLE));
      assertEquals(List.of("a", "b", "m", "z"), s.children("/list"));
      assertEquals(List.of(), s.children("/absent"));
    }
  }

  @Test
  void badPathsAreRefused() throws Exception {
    try (StateStore s = store()) {
      for (String p : new String[] {"", "x", "/a//b", "/a/../b", "/a/", "/a b", "/a/./b"}) {
        assertThrows(IllegalArgumentException.class, () -> s.read(p), p);
      }
      assertEquals(":434e3d616c6963652c4f3d6c6162", StorePaths.segment("CN=alice,O=lab"));
      assertEquals("alice", StorePaths.segment("alice"));
      assertEquals(":3a78", StorePaths.segment(":x"), "a name that looks encoded is encoded");
      for (String n : new String[] {"CN=alice,O=lab", "alice", ":x", "..", "\u00e9l\u00e8ve"}) {
        assertEquals(n, StorePaths.name(StorePaths.segment(n)), "the segment reads back: " + n);
      }
    }
  }

  @Test
  void exactlyOneOfManyRacingCreatorsWins() throws Exception {
    try (StateStore s = store()) {
      StateStore other = peer(s);
      try {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
          for (int round = 0; round < 20; round++) {
            String path = "/credentials/c" + round;
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> tries = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
              StateStore member = i % 2 == 0 ? s : other;
              tries.add(
                  pool.submit(
                      () -> {
                        go.await();
                        return member.create(path, b("used"), Lifetime.DURABLE);
                      }));
            }
            go.countDown();
            int won = 0;
            for (Future<Boolean> f : tries) {
              won += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertEquals(1, won, path);
          }
        } finally {
          pool.shutdownNow();
        }
      } finally {
        if (other != s) {
          other.close();
        }
      }
    }
  }

  @Test
  void watchesDeliverTheStateThenEachChangeInOrder() throws Exception {
    try (StateStore s = store()) {
      s.create("/sessions/alice", b("secret"), Lifetime.DURABLE);
      BlockingQueue<StoreEvent> q = new LinkedBlockingQueue<>();
      StateStore.Subscription w = s.watch("/sessions", q::add);
      try {
        StoreEvent first = next(q);
        assertEquals(StoreEvent.Kind.PUT, first.kind());
        assertEquals("/sessions/alice", first.path());
        assertEquals(StoreEvent.Kind.READY, next(q).kind());
        s.create("/sessions/bob", b("s"), Lifetime.DURABLE);
        StoreEvent put = next(q);
        assertEquals(StoreEvent.Kind.PUT, put.kind());
        assertEquals("/sessions/bob", put.path());
        int v = s.read("/sessions/bob").orElseThrow().version();
        s.replace("/sessions/bob", b("TOP_SECRET"), v);
        StoreEvent changed = next(q);
        assertEquals("TOP_SECRET", new String(changed.value().data(), UTF_8));
        s.delete("/sessions/alice", Versioned.ANY);
        StoreEvent gone = next(q);
        assertEquals(StoreEvent.Kind.REMOVED, gone.kind());
        assertEquals("/sessions/alice", gone.path());
      } finally {
        w.close();
      }
    }
  }

  @Test
  void leasedEntriesEndWithTheirOwner() throws Exception {
    StateStore owner = store();
    StateStore watcher = peer(owner);
    try {
      BlockingQueue<StoreEvent> q = new LinkedBlockingQueue<>();
      watcher.watch("/members", q::add);
      assertEquals(StoreEvent.Kind.READY, next(q).kind());
      assertTrue(owner.create("/members/pdp-a", b("10.0.0.1:3288"), Lifetime.LEASED));
      assertTrue(owner.create("/members-durable", b("x"), Lifetime.DURABLE));
      assertEquals(StoreEvent.Kind.PUT, next(q).kind());
      owner.close();
      StoreEvent e = next(q);
      assertEquals(StoreEvent.Kind.REMOVED, e.kind());
      assertEquals("/members/pdp-a", e.path());
      if (watcher != owner) {
        assertTrue(watcher.read("/members/pdp-a").isEmpty());
        assertTrue(watcher.read("/members-durable").isPresent(), "durable entries stay");
      }
    } finally {
      owner.close();
      watcher.close();
    }
  }
}
