package dev.portcullis.pdp.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pdp.connection.RevokedSubjects.Revocation;
import dev.portcullis.state.EmbeddedStateStore;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreListener;
import dev.portcullis.support.Threads;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member's own writes and the watch that reports them late: what this member did after a change
 * is never undone by that change arriving afterwards (its revocation seen after it was restored
 * here, its restoration seen after it revoked again).
 */
@Timeout(30)
class FleetRevocationsTest {
  /** A store whose watch events wait until the test hands them over, in order. */
  static final class HeldEvents {
    final BlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
    final StateStore store;

    HeldEvents(StateStore real) {
      store =
          (StateStore)
              Proxy.newProxyInstance(
                  StateStore.class.getClassLoader(),
                  new Class<?>[] {StateStore.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("watch")) {
                      StoreListener l = (StoreListener) args[1];
                      StoreListener held =
                          e -> {
                            if (e.kind() == StoreEvent.Kind.READY) {
                              l.changed(e); // the start is not what is under test
                            } else {
                              events.add(() -> l.changed(e));
                            }
                          };
                      args = new Object[] {args[0], held};
                    }
                    try {
                      return method.invoke(real, args);
                    } catch (InvocationTargetException x) {
                      throw x.getCause();
                    }
                  });
    }

    /** Hands over every event the store has reported so far (waiting for the first). */
    void deliver(int count) throws InterruptedException {
      for (int i = 0; i < count; i++) {
        Runnable r = events.poll(5, TimeUnit.SECONDS);
        assertTrue(r != null, "an event " + (i + 1) + " of " + count);
        r.run();
      }
    }
  }

  /** What the member was told, one line each. */
  static final class Heard implements FleetRevocations.Listener {
    final List<String> said = new ArrayList<>();

    @Override
    public void revoked(Revocation r, String member) {
      said.add("revoked " + r.subject() + " by " + r.by());
    }

    @Override
    public void restored(String subject, String by) {
      said.add("restored " + subject + " by " + by);
    }
  }

  static Revocation alice(String by) {
    return new Revocation("alice", by, "incident", Instant.parse("2026-11-28T10:00:00Z"));
  }

  @Test
  void aMembersOwnRevocationSeenAfterItRestoredItIsNotAppliedAgain() throws Exception {
    try (EmbeddedStateStore real = EmbeddedStateStore.inMemory()) {
      HeldEvents store = new HeldEvents(real);
      Heard heard = new Heard();
      FleetRevocations f = new FleetRevocations(store.store, () -> "a", heard, Runnable::run);
      assertTrue(f.publish(alice("ops-1")));
      assertTrue(f.withdraw("alice", "ops-2"));
      store.deliver(2); // the revocation (version 0), then its restoration (1): both late
      assertEquals(List.of("restored alice by ops-2"), heard.said, "not revoked again meanwhile");

      assertTrue(f.publish(alice("ops-3"))); // over the restored entry (version 2)
      assertTrue(f.withdraw("alice", "ops-4")); // 3
      assertTrue(f.publish(alice("ops-5"))); // 4
      store.deliver(3);
      assertEquals(
          List.of("restored alice by ops-2", "revoked alice by ops-5"),
          heard.said,
          "the late restoration does not undo the revocation made after it");
      f.close();
    }
  }

  @Test
  void anotherMembersChangesAreAllApplied() throws Exception {
    try (EmbeddedStateStore real = EmbeddedStateStore.inMemory()) {
      HeldEvents store = new HeldEvents(real);
      Heard heard = new Heard();
      FleetRevocations here = new FleetRevocations(store.store, () -> "a", heard, Runnable::run);
      // the other member writes, and hears its store's events, on one owner thread, as a PDP's
      // housekeeping does
      ScheduledExecutorService b = Threads.owner("member-b");
      FleetRevocations there = new FleetRevocations(real, () -> "b", new Heard(), b);
      assertTrue(b.submit(() -> there.publish(alice("ops-1"))).get(5, TimeUnit.SECONDS));
      assertTrue(b.submit(() -> there.withdraw("alice", "ops-2")).get(5, TimeUnit.SECONDS));
      store.deliver(2);
      assertEquals(List.of("revoked alice by ops-1", "restored alice by ops-2"), heard.said);
      here.close();
      there.close();
      b.shutdownNow();
    }
  }
}
