package dev.portcullis.support;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Monotonic time and the timers that run by it, as one pair a component is given (docs/
 * architecture.md, "Time"): an expiry read from {@link #nanoTime} and the timer that acts on it
 * come from the same source, so a test that moves one moves the other, and waits for nothing. A
 * timer's task runs on the executor that owns the state it touches (a channel's event loop), never
 * on a thread of the time base's own.
 */
public interface Timebase {
  /** The system's: {@link System#nanoTime}, and each timer on its owner's own scheduler. */
  Timebase SYSTEM =
      new Timebase() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public Future<?> schedule(
            ScheduledExecutorService owner, Runnable task, long delay, TimeUnit unit) {
          return owner.schedule(task, delay, unit);
        }

        @Override
        public String toString() {
          return "system time";
        }
      };

  /** Now, in nanoseconds from an arbitrary origin; only differences mean anything. */
  long nanoTime();

  /**
   * Runs {@code task} on {@code owner} once {@code delay} has passed by this time base.
   *
   * @return what cancels it
   * @throws java.util.concurrent.RejectedExecutionException if {@code owner} is shutting down
   */
  Future<?> schedule(ScheduledExecutorService owner, Runnable task, long delay, TimeUnit unit);
}
