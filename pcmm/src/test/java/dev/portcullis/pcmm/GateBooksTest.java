package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.Threads;
import io.netty.channel.DefaultEventLoop;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The books decide outside their lock and file only what was decided on the gates held: a slow
 * policy holds up no other subscriber, and a limit of one gate lets one of two racing Gate-Sets
 * through, never both.
 */
@Timeout(30)
class GateBooksTest {
  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  private final DefaultEventLoop owner = new DefaultEventLoop(Threads.daemon("test-books"));
  private final GateBooks books = new GateBooks(owner);

  @AfterEach
  void stop() {
    owner.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    threads.shutdownNow();
  }

  /** Reserves on one of the test's threads, where a synchronous policy then decides. */
  private CompletableFuture<GatePolicy.Verdict> reserveOnAThread(Gate inFlight, GatePolicy p) {
    return CompletableFuture.supplyAsync(() -> books.reserve(inFlight, p), threads)
        .thenCompose(v -> v);
  }

  private static Gate inFlight(int subscriber, int port) {
    return new Gate("cmts-1", 0, request(subscriber, "BE", port), 0);
  }

  @Test
  void aSlowPolicyHoldsUpNoOtherSubscriber() throws Exception {
    CountDownLatch deciding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    GatePolicy slowForOne =
        (r, gates) -> {
          if (r.subscriber().equals(request(1, "BE", 1).subscriber())) {
            deciding.countDown();
            try {
              release.await(20, TimeUnit.SECONDS); // an engine asking a directory, say
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return GatePolicy.Verdict.allow("ok");
        };
    CompletableFuture<GatePolicy.Verdict> slow = reserveOnAThread(inFlight(1, 1), slowForOne);
    assertTrue(deciding.await(10, TimeUnit.SECONDS));
    // decided while the other subscriber's policy still runs: the books' lock is not held by it
    CompletableFuture<GatePolicy.Verdict> other = reserveOnAThread(inFlight(2, 1), slowForOne);
    assertTrue(other.get(5, TimeUnit.SECONDS).allowed(), "another subscriber's Gate-Set");
    assertFalse(slow.isDone());
    release.countDown();
    assertTrue(slow.get(10, TimeUnit.SECONDS).allowed());
    assertEquals(List.of(), books.all(), "two Gate-Sets in flight (ID 0), no gate held yet");
  }

  @Test
  void aDecisionMadeOnGatesThatChangedIsMadeAgain() throws Exception {
    SubscriberLimits one = new SubscriberLimits(1, Set.of());
    CountDownLatch firstDeciding = new CountDownLatch(1);
    CountDownLatch otherFiled = new CountDownLatch(1);
    AtomicInteger decisions = new AtomicInteger();
    GatePolicy racing =
        (r, gates) -> {
          GatePolicy.Verdict v = one.decide(r, gates);
          if (decisions.incrementAndGet() == 1) {
            firstDeciding.countDown();
            try {
              otherFiled.await(20, TimeUnit.SECONDS); // the other Gate-Set is filed meanwhile
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return v;
        };
    CompletableFuture<GatePolicy.Verdict> first = reserveOnAThread(inFlight(1, 1), racing);
    assertTrue(firstDeciding.await(10, TimeUnit.SECONDS));
    GatePolicy.Verdict second = books.reserve(inFlight(1, 2), one).get(5, TimeUnit.SECONDS);
    assertTrue(second.allowed(), "the subscriber's first gate");
    otherFiled.countDown();
    GatePolicy.Verdict v = first.get(10, TimeUnit.SECONDS);
    assertFalse(v.allowed(), "decided again with the other Gate-Set counted: " + v.reason());
    assertEquals(2, decisions.get(), "once on the gates as they were, once on those held");
    assertEquals(List.of(), books.all());
  }

  /**
   * A policy that decides in its own time is continued when it completes: the Gate-Set is filed
   * then, on the books' own thread, and counted against the next one from that moment.
   */
  @Test
  void anAsynchronousDecisionIsFiledWhenItCompletes() throws Exception {
    SubscriberLimits one = new SubscriberLimits(1, Set.of());
    CompletableFuture<Void> later = new CompletableFuture<>();
    GatePolicy inItsOwnTime =
        new GatePolicy() {
          @Override
          public Verdict decide(GateRequest r, List<Gate> gates) {
            throw new AssertionError("waited for");
          }

          @Override
          public CompletionStage<Verdict> decideAsync(GateRequest r, List<Gate> gates) {
            return later.thenApply(x -> one.decide(r, gates));
          }
        };
    CompletableFuture<GatePolicy.Verdict> first = books.reserve(inFlight(1, 1), inItsOwnTime);
    assertFalse(first.isDone());
    later.complete(null);
    assertTrue(first.get(5, TimeUnit.SECONDS).allowed());
    GatePolicy.Verdict second =
        books.reserve(inFlight(1, 2), inItsOwnTime).get(5, TimeUnit.SECONDS);
    assertFalse(second.allowed(), "the first Gate-Set counted: " + second.reason());
  }

  /** Nobody but the books' own thread changes them. */
  @Test
  void theBooksAreChangedOnTheirOwnThreadOnly() throws Exception {
    Gate g = new Gate("cmts-1", 7, request(1, "BE", 1), 1);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> books.fileIfAbsentHere(g));
    assertTrue(e.getMessage().contains("owner's event loop only"), e.getMessage());
    assertEquals(null, books.change(() -> books.fileIfAbsentHere(g)).get(5, TimeUnit.SECONDS));
    assertEquals(List.of(g), books.all(), "published to every thread once changed");
  }
}
