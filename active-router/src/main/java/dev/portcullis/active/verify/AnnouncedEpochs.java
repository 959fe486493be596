package dev.portcullis.active.verify;

import dev.portcullis.support.LogSummary;
import java.time.Clock;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Which (Ci, epoch) a router may ask its code source for: only codes it runs, only epochs the
 * source has announced. A packet claiming an epoch newer than every announced one (and not beyond
 * what the clock allows) makes it ask for the list again, at most once per {@link #REFRESH_MILLIS}
 * per code; the packets of the code wait on that refresh, which ends when the new epochs' secrets
 * have arrived too. Unauthenticated packets thus cost at most a bounded number of requests and
 * leave no state for codes the router does not run.
 */
final class AnnouncedEpochs {
  /** A code's announced epochs are asked for at most this often. */
  static final long REFRESH_MILLIS = 1_000;

  /**
   * Epochs are numbered by their creation second; a claimed epoch further ahead of this router's
   * clock than this (plus the skew) cannot exist yet and triggers no request.
   */
  static final long EPOCH_AHEAD_SECONDS = 60;

  private final CodeSource source;
  private final Clock clock;
  private final long skewSeconds;
  private final AtomicInteger outstanding;
  private final int maxOutstanding;
  private final LogSummary failures;

  /**
   * Starts fetching the secrets of newly announced epochs of a code; completes when they are here
   * (or their fetches failed).
   */
  private final BiFunction<Integer, int[], CompletableFuture<?>> prefetch;

  private final ConcurrentHashMap<Integer, Code> codes = new ConcurrentHashMap<>();

  /** True once the source said it needs no announcements ({@link CodeSource#epochs} null). */
  private volatile boolean unguarded;

  /** What the router knows of one code's announced epochs. */
  private static final class Code {
    int[] epochs = new int[0]; // sorted as unsigned numbers
    long fetchedAt = Long.MIN_VALUE / 2; // clock millis of the last request
    CompletableFuture<?> refresh; // non-null while a request (or its scheduled start) is pending

    boolean contains(int epoch) {
      for (int e : epochs) {
        if (e == epoch) {
          return true;
        }
      }
      return false;
    }

    /** True if {@code epoch} is newer than every announced one. */
    boolean newer(int epoch) {
      return epochs.length == 0 || Integer.compareUnsigned(epoch, epochs[epochs.length - 1]) > 0;
    }
  }

  /**
   * @param outstanding requests in flight, shared with the secret fetches
   * @param prefetch starts the fetches of a code's announced secrets
   */
  AnnouncedEpochs(
      CodeSource source,
      Clock clock,
      long skewSeconds,
      AtomicInteger outstanding,
      int maxOutstanding,
      LogSummary failures,
      BiFunction<Integer, int[], CompletableFuture<?>> prefetch) {
    this.source = source;
    this.clock = clock;
    this.skewSeconds = skewSeconds;
    this.outstanding = outstanding;
    this.maxOutstanding = maxOutstanding;
    this.failures = failures;
    this.prefetch = prefetch;
  }

  /**
   * Null if (Ci, epoch) is announced and may be fetched; otherwise what keeps it from being
   * fetched: {@link Outcome#PENDING} while the code's announced epochs are being asked for, {@link
   * Outcome#UNKNOWN_CODE} if the epoch is not among them (and cannot be newer than the last answer
   * in a way worth asking about), {@link Outcome#CODE_UNAVAILABLE} if too many requests are out.
   */
  Outcome check(int code, int epoch) {
    if (unguarded) {
      return null;
    }
    if (!source.knows(code)) {
      return Outcome.UNKNOWN_CODE;
    }
    Code a = codes.computeIfAbsent(code, c -> new Code());
    synchronized (a) {
      if (a.contains(epoch)) {
        return null;
      }
      if (a.refresh != null) {
        return Outcome.PENDING;
      }
      long now = clock.millis();
      boolean possible =
          a.newer(epoch)
              && Integer.toUnsignedLong(epoch) <= now / 1000 + skewSeconds + EPOCH_AHEAD_SECONDS;
      if (!possible) {
        return Outcome.UNKNOWN_CODE;
      }
      if (outstanding.get() >= maxOutstanding) {
        return Outcome.CODE_UNAVAILABLE;
      }
      long wait = a.fetchedAt + REFRESH_MILLIS - now;
      CompletableFuture<Void> done = new CompletableFuture<>();
      if (wait <= 0) {
        CompletableFuture<int[]> list = ask(code);
        if (list == null) {
          unguarded = true; // this source needs no announcements
          codes.clear();
          return null;
        }
        a.refresh = done;
        refresh(code, a, list, done);
      } else {
        // Asked less than a second ago: the packets wait for the next allowed request.
        a.refresh = done;
        CompletableFuture.runAsync(
            () -> {
              CompletableFuture<int[]> list = ask(code);
              refresh(code, a, list == null ? CompletableFuture.completedFuture(null) : list, done);
            },
            CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS));
      }
      return Outcome.PENDING;
    }
  }

  /**
   * The refresh of a code's epochs in progress, or null: while there is one, every packet of the
   * code waits on it (in arrival order), even one whose secret is already being fetched.
   */
  CompletableFuture<?> pending(int code) {
    Code a = codes.get(code);
    if (a == null) {
      return null;
    }
    synchronized (a) {
      return a.refresh;
    }
  }

  /** The source's answer; a source that throws is a failed answer, so no refresh hangs. */
  private CompletableFuture<int[]> ask(int code) {
    try {
      return source.epochs(code);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void refresh(
      int code, Code a, CompletableFuture<int[]> list, CompletableFuture<Void> done) {
    outstanding.incrementAndGet();
    synchronized (a) {
      a.fetchedAt = clock.millis();
    }
    list.whenComplete(
        (epochs, err) -> {
          outstanding.decrementAndGet();
          boolean answered = err == null && epochs != null;
          synchronized (a) {
            if (answered) {
              int[] sorted = epochs.clone();
              sortUnsigned(sorted);
              a.epochs = sorted;
            } else {
              Throwable cause =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              failures.warn(
                  "epochs of Ci=" + Integer.toUnsignedString(code),
                  "announced epochs of Ci={} not fetched: {}",
                  Integer.toUnsignedString(code),
                  cause == null ? "no answer" : cause.getMessage());
            }
          }
          // The refresh ends when the new secrets are here too: packets that arrive meanwhile wait
          // on the same future as those before them, so they are verified in arrival order.
          CompletableFuture<?> secrets =
              answered ? prefetch.apply(code, epochs) : CompletableFuture.completedFuture(null);
          secrets.whenComplete(
              (x, y) -> {
                synchronized (a) {
                  a.refresh = null;
                }
                done.complete(null);
              });
        });
  }

  private static void sortUnsigned(int[] a) {
    for (int i = 0; i < a.length; i++) {
      a[i] ^= Integer.MIN_VALUE;
    }
    Arrays.sort(a);
    for (int i = 0; i < a.length; i++) {
      a[i] ^= Integer.MIN_VALUE;
    }
  }
}
