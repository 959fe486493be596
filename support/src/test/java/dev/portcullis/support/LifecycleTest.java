package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LifecycleTest {

  /** A bound server whose close blocks until the test lets it go. */
  static final class Held extends Lifecycle.Bound {
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger closes = new AtomicInteger();
    final AtomicReference<Thread> closedOn = new AtomicReference<>();

    @Override
    public void close() {
      closes.incrementAndGet();
      closedOn.set(Thread.currentThread());
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stoppedNow();
    }
  }

  @Test
  void aBoundServerIsReadyAtOnceAndReadyUntilStopped() {
    Held s = new Held();
    assertTrue(s.ready().isDone());
    assertTrue(s.isReady());
    s.release.countDown();
    s.close();
    assertTrue(s.stopped().isDone());
    assertFalse(s.isReady(), "not ready once stopped");
  }

  @Test
  void closeAsyncClosesOnAThreadOfItsOwnAndReturnsStopped() throws Exception {
    Held s = new Held();
    var stopping = s.closeAsync();
    assertSame(s.stopped(), stopping);
    assertFalse(stopping.isDone(), "the caller is not held while the server stops");
    s.release.countDown();
    stopping.get(10, TimeUnit.SECONDS);
    assertNotEquals(Thread.currentThread(), s.closedOn.get());
    assertTrue(s.closedOn.get().getName().contains("Held"), s.closedOn.get().getName());
    assertSame(stopping, s.closeAsync(), "stopped: nothing more is started");
    assertEquals(1, s.closes.get());
  }
}
