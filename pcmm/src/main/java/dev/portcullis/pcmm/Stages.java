package dev.portcullis.pcmm;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Asynchronous steps taken one after another, each started only when the one before it completed: a
 * gate policy's parts (the first denial decides) and the gates a policy change decides again (each
 * decided without those already doomed). Steps that complete at once run in a loop on the caller's
 * thread, so a thousand synchronous ones take no thousand-deep chain of stages; a step that is
 * still running is continued on the thread that completes it, never waited for.
 */
final class Stages {
  private Stages() {}

  /**
   * Runs {@code step} on each of {@code items} in turn; completes with the first result that {@code
   * stop} accepts, or else with {@code all} applied to every result in order. The first step that
   * fails (or throws) fails the whole.
   */
  static <T, R> CompletableFuture<R> inTurn(
      List<T> items,
      Function<T, CompletionStage<R>> step,
      Predicate<R> stop,
      Function<List<R>, R> all) {
    Run<T, R> r = new Run<>(items.iterator(), step, stop, all, items.size());
    r.next();
    return r.done;
  }

  private static final class Run<T, R> {
    final Iterator<T> todo;
    final Function<T, CompletionStage<R>> step;
    final Predicate<R> stop;
    final Function<List<R>, R> all;
    final List<R> results;
    final CompletableFuture<R> done = new CompletableFuture<>();

    Run(
        Iterator<T> todo,
        Function<T, CompletionStage<R>> step,
        Predicate<R> stop,
        Function<List<R>, R> all,
        int size) {
      this.todo = todo;
      this.step = step;
      this.stop = stop;
      this.all = all;
      this.results = new ArrayList<>(size);
    }

    /** Takes steps until one is still running (then its completion takes the next) or all ran. */
    void next() {
      try {
        while (todo.hasNext()) {
          CompletableFuture<R> f = step.apply(todo.next()).toCompletableFuture();
          if (!f.isDone()) {
            f.whenComplete(
                (v, e) -> {
                  if (e != null) {
                    done.completeExceptionally(e);
                  } else if (!took(v)) {
                    next();
                  }
                });
            return;
          }
          if (took(f.join())) {
            return;
          }
        }
        done.complete(all.apply(results));
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    }

    /** True if {@code v} ends the run. */
    private boolean took(R v) {
      if (stop.test(v)) {
        done.complete(v);
        return true;
      }
      results.add(v);
      return false;
    }
  }
}
