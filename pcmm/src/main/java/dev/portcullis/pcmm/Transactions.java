package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.pcmm.GateRefusedException.Kind;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gate control transactions outstanding on one connection to a CMTS: a fresh Transaction ID for
 * each (1 to 65535, skipping those outstanding), completed by the CMTS's answer to it, or failed
 * after the answer timeout or when the connection is lost. Its connection's event loop only.
 */
final class Transactions {
  private final Map<Integer, CompletableFuture<GateMessage>> pending = new HashMap<>();
  private final String cmts;
  private final Duration timeout;
  private int next = 1;
  private volatile int most;

  Transactions(String cmts, Duration timeout) {
    this.cmts = cmts;
    this.timeout = timeout;
  }

  /**
   * Opens a transaction for {@code answer}: its ID, or 0 (and {@code answer} failed) when 65535 are
   * outstanding. The answer fails with "no answer" after the timeout, scheduled on {@code loop}.
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
    int txn = id;
    pending.put(txn, answer);
    most = Math.max(most, pending.size());
    ScheduledFuture<?> t =
        loop.schedule(
            () -> {
              if (pending.remove(txn, answer)) {
                answer.completeExceptionally(
                    new GateRefusedException(
                        Kind.NO_ANSWER,
                        command.description()
                            + " #"
                            + txn
                            + ": no answer from CMTS "
                            + cmts
                            + " in "
                            + timeout.toMillis()
                            + " ms",
                        null));
              }
            },
            timeout.toMillis(),
            TimeUnit.MILLISECONDS);
    answer.whenComplete((m, e) -> t.cancel(false));
    return txn;
  }

  /** The most transactions this connection has had outstanding at once. */
  int most() {
    return most;
  }

  /** Fails {@code txn}'s answer, if it is still outstanding, with {@code e}. */
  void fail(int txn, CompletableFuture<GateMessage> answer, GateRefusedException e) {
    if (pending.remove(txn, answer)) {
      answer.completeExceptionally(e);
    }
  }

  /** The answer waiting for {@code txn}, taken out; null if none (a late or stray answer). */
  CompletableFuture<GateMessage> take(int txn) {
    return pending.remove(txn);
  }

  /** Fails every outstanding transaction: the connection is lost. */
  void failAll(GateRefusedException e) {
    List<CompletableFuture<GateMessage>> waiting = new ArrayList<>(pending.values());
    pending.clear();
    waiting.forEach(f -> f.completeExceptionally(e));
  }
}
