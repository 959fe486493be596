package dev.portcullis.pcmm;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Gate-Sets in doubt: sent, but their answer never came (or never reached the fleet's store). The
 * gate may exist on the CMTS, unknown here, and I02 gives no way to list a CMTS's gates; so it
 * counts against its subscriber and the same flows are refused ({@link GateBooks#reserve}) until
 * the gate's T1 has run out (the CMTS's wait for an authorized gate to be reserved; 200 s when the
 * Gate Spec leaves it 0), then it is forgotten, in the books and in the journal.
 */
final class Doubts {
  private final GateBooks books;
  private final EventLoopGroup group;
  private final Duration answerTimeout;
  private final Supplier<GateJournal> journal;

  Doubts(
      GateBooks books,
      EventLoopGroup group,
      Duration answerTimeout,
      Supplier<GateJournal> journal) {
    this.books = books;
    this.group = group;
    this.answerTimeout = answerTimeout;
    this.journal = journal;
  }

  /** Files {@code g}'s Gate-Set, recorded as {@code intent}, in doubt until its T1 ends. */
  void file(Gate g, String intent) {
    Gate d = new Gate(g.cmts(), 0, g.request(), Gate.IN_DOUBT);
    books.fileInDoubt(d);
    int t1 = g.request().gateSpec().t1();
    long wait = Math.max(answerTimeout.toMillis(), (t1 == 0 ? 200 : t1) * 1000L);
    group
        .next()
        .schedule(
            () -> {
              if (books.unfile(d)) {
                journal.get().expired(d.cmts(), intent);
              }
            },
            wait,
            TimeUnit.MILLISECONDS);
  }
}
