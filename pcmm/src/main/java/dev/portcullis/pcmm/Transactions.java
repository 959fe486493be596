package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.pcmm.GateRefusedException.Kind;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gate control transactions outstanding on one connection to a CMTS: a fresh Transaction ID for
 * each (1 to 65535, skipping those outstanding), completed by the CMTS's answer to it, or failed
 * when the connection is lost, or when the answer timeout has passed: one sweep a quarter of the
 * timeout checks them all (so a timeout fires up to a quarter late), instead of a timer a
 * transaction to schedule and cancel on every round trip. Its connection's event loop only.
 */
final class Transactions {
  private record Waiting(
      CompletableFuture<GateMessage> answer, GateCommand command, long deadlineNanos) {}

  private final Map<Integer, Waiting> pending = new HashMap<>();
  private final String cmts;
  private final Duration timeout;
  private final TimedOut timedOut;
  private int next = 1;
  private volatile int most;
  private ScheduledFuture<?> sweep;

  /** Told of each transaction the timeout passed on, before its answer fails. */
  interface TimedOut {
    /** {@code sentNanos}: when it left (System.nanoTime). */
    void timedOut(GateCommand command, int txn, long sentNanos);
  }

  Transactions(String cmts, Duration timeout, TimedOut timedOut) {
    this.cmts = cmts;
    this.timeout = timeout;
    this.timedOut = timedOut;
  }

  /**
   * Opens a transaction for {@code answer}: its ID, or 0 (and {@code answer} failed) when 65535 are
   * outstanding. The answer fails with "no answer" once the timeout has passed, checked on {@code
   * loop}.
   */
  int open(GateCommand command, CompletableFuture<GateMessage> answer, EventLoop loop) {
    if (pending.size() >= 0xFFFF) {
      answer.completeExceptionally(
          new GateRefusedException(
              Kind.UNAVAILABLE,
              command.description() + ": 65535 transactions outstanding on CMTS " + cmts,
              null));
      return 0;
    }
    int id = next;
    while (pending.containsKey(id)) {
      id = id == 0xFFFF ? 1 : id + 1;
    }
    next = id == 0xFFFF ? 1 : id + 1;
    pending.put(id, new Waiting(answer, command, System.nanoTime() + timeout.toNanos()));
    most = Math.max(most, pending.size());
    if (sweep == null) {
      long period = Math.max(10, timeout.toMillis() / 4);
      sweep = loop.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }
    return id;
  }

  private void sweep() {
    long now = System.nanoTime();
    List<Map.Entry<Integer, Waiting>> late = new ArrayList<>();
    for (Iterator<Map.Entry<Integer, Waiting>> i = pending.entrySet().iterator(); i.hasNext(); ) {
      Map.Entry<Integer, Waiting> e = i.next();
      if (now - e.getValue().deadlineNanos() >= 0) {
        late.add(e);
        i.remove();
      }
    }
    for (Map.Entry<Integer, Waiting> e : late) {
      timedOut.timedOut(
          e.getValue().command(), e.getKey(), e.getValue().deadlineNanos() - timeout.toNanos());
      e.getValue()
          .answer()
          .completeExceptionally(
              new GateRefusedException(
                  Kind.NO_ANSWER,
                  e.getValue().command().description()
                      + " #"
                      + e.getKey()
                      + ": no answer from CMTS "
                      + cmts
                      + " in "
                      + timeout.toMillis()
                      + " ms",
                  null));
    }
  }

  /** The most transactions this connection has had outstanding at once. */
  int most() {
    return most;
  }

  /** Fails {@code txn}'s answer, if it is still outstanding, with {@code e}. */
  void fail(int txn, CompletableFuture<GateMessage> answer, GateRefusedException e) {
    Waiting w = pending.get(txn);
    if (w != null && w.answer() == answer) {
      pending.remove(txn);
      answer.completeExceptionally(e);
    }
  }

  /** Gives {@code txn} a whole timeout again from now (a long answer still arriving). */
  void extend(int txn) {
    Waiting w = pending.get(txn);
    if (w != null) {
      pending.put(txn, new Waiting(w.answer(), w.command(), System.nanoTime() + timeout.toNanos()));
    }
  }

  /** The answer waiting for {@code txn}, taken out; null if none (a late or stray answer). */
  CompletableFuture<GateMessage> take(int txn) {
    Waiting w = pending.remove(txn);
    return w == null ? null : w.answer();
  }

  /** Fails every outstanding transaction, and stops the sweep: the connection is lost. */
  void failAll(GateRefusedException e) {
    if (sweep != null) {
      sweep.cancel(false);
    }
    List<Waiting> waiting = new ArrayList<>(pending.values());
    pending.clear();
    waiting.forEach(w -> w.answer().completeExceptionally(e));
  }
}
