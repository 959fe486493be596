package dev.portcullis.support;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A time base that stands still until a test moves it: {@link #advance} hands every timer that has
 * come due to its owner, in the order they are due, and returns once they have run. Time passes
 * without sleeping, and a slow machine fires nothing early. An owner the calling thread runs (an
 * {@code EmbeddedChannel}'s loop) only gets the task queued, as a real loop busy with something
 * else would: it runs when the test runs that loop's pending tasks. Thread-safe.
 */
public final class ManualTimebase implements Timebase {
  private record Timer(long due, long order, ScheduledExecutorService owner, FutureTask<?> task) {}

  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(Comparator.comparingLong(Timer::due).thenComparingLong(Timer::order));
  private long now;
  private long scheduled;

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Future<?> schedule(
      ScheduledExecutorService owner, Runnable task, long delay, TimeUnit unit) {
    FutureTask<?> f = new FutureTask<>(task, null);
    timers.add(new Timer(now + unit.toNanos(Math.max(0, delay)), scheduled++, owner, f));
    return f;
  }

  /** Timers not yet run or cancelled. */
  public synchronized int pending() {
    timers.removeIf(t -> t.task().isCancelled());
    return timers.size();
  }

  /**
   * Moves time on by {@code d} and runs what came due meanwhile, including timers those tasks set
   * within it; each runs on its owner, and this waits (at most 10 s each) until it has.
   */
  public void advance(Duration d) throws InterruptedException {
    long until;
    synchronized (this) {
      until = now + d.toNanos();
    }
    while (true) {
      Timer next;
      synchronized (this) {
        next = timers.peek();
        if (next == null || next.due() > until) {
          now = until;
          return;
        }
        timers.poll();
        now = Math.max(now, next.due());
      }
      if (next.task().isCancelled()) {
        continue;
      }
      next.owner().execute(next.task());
      if (next.owner() instanceof EventExecutor e && e.inEventLoop()) {
        continue; // queued on the caller's own loop: it runs when the caller runs that loop
      }
      try {
        next.task().get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError("a timer's task failed", e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError("a timer's task did not run on its owner within 10 s", e);
      } catch (java.util.concurrent.CancellationException e) {
        // cancelled while queued to its owner: as if it had not come due
      }
    }
  }

  /** Each timer's delay from now, for a failing assertion's message. */
  @Override
  public synchronized String toString() {
    List<Long> left = new ArrayList<>();
    for (Timer t : timers) {
      left.add(t.due() - now);
    }
    return "manual time at " + now + " ns, timers in " + left + " ns";
  }
}
