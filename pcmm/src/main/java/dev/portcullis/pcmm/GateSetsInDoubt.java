package dev.portcullis.pcmm;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Gate-Sets in doubt: sent, but their answer never came (or could not be read, or never reached the
 * fleet's store). The gate may exist on the CMTS, unknown here; so it counts against its subscriber
 * and the same flows are refused ({@link GateBooks#reserve}) until it is found or the gate's T1 has
 * run out (the CMTS's wait for an authorized gate to be reserved; 200 s when the Gate Spec leaves
 * it 0), then it is forgotten, in the books and in the journal. A CMTS of a later issue than I02
 * lists its gates when asked (Synch-Request): a gate there that matches a Gate-Set in doubt is that
 * Gate-Set's gate ({@link #foundHere}).
 */
final class GateSetsInDoubt {
  private final GateBooks books;
  private final Duration answerTimeout;
  private final Supplier<GateJournal> journal;

  /**
   * Each Gate-Set in doubt, and its intent in the journal ("" for a lone server): changed by the
   * books' owner only, with the books (so a Gate-Set in doubt is in both or in neither), read by
   * anyone.
   */
  private final Map<Gate, String> inDoubt = new ConcurrentHashMap<>();

  GateSetsInDoubt(GateBooks books, Duration answerTimeout, Supplier<GateJournal> journal) {
    this.books = books;
    this.answerTimeout = answerTimeout;
    this.journal = journal;
  }

  /**
   * Files {@code g}'s Gate-Set, recorded as {@code intent} (null: not recorded, a lone server), in
   * doubt until found or its T1 ends; the stage completes once it is filed.
   */
  CompletableFuture<Void> file(Gate g, String intent) {
    return books.change(
        () -> {
          fileHere(g, intent);
          return null;
        });
  }

  /** On the books' owner: as {@link #file}. */
  void fileHere(Gate g, String intent) {
    Gate d = new Gate(g.cmts(), 0, g.request(), Gate.IN_DOUBT);
    int t1 = g.request().gateSpec().t1();
    long wait = Math.max(answerTimeout.toMillis(), (t1 == 0 ? 200 : t1) * 1000L);
    books.fileInDoubtHere(d);
    inDoubt.put(d, intent == null ? "" : intent);
    books.later(
        () -> {
          String i = inDoubt.remove(d);
          if (i != null && books.unfileHere(d) && !i.isEmpty()) {
            journal.get().expired(d.cmts(), i);
          }
        },
        wait);
  }

  /** The Gate-Sets in doubt on {@code cmts}. */
  List<Gate> on(String cmts) {
    return inDoubt.keySet().stream().filter(d -> d.cmts().equals(cmts)).toList();
  }

  /**
   * The Gate-Set in doubt {@code d} made {@code gate} (found on its CMTS): no longer in doubt, the
   * gate filed and recorded; false (nothing filed) if {@code d} was no longer in doubt, or a gate
   * with that ID is held already. On the books' owner.
   */
  boolean foundHere(Gate d, Gate gate) {
    String intent = inDoubt.remove(d);
    if (intent == null) {
      return false;
    }
    if (books.settleHere(d, gate) != null) {
      return false;
    }
    if (!intent.isEmpty()) {
      journal.get().resolved(intent, gate);
    }
    return true;
  }
}
