package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each CMTS tells its policy server, on the CMTS's event loop: that it is ready (then each
 * gate held there is asked for: after a reconnect, or a CMTS taken over with its gates), that it
 * was lost (its gates stay filed: the CMTS keeps them), and its Gate-Report-States.
 */
final class CmtsWatch implements CmtsLink.Events {
  private static final Logger log = LoggerFactory.getLogger(CmtsWatch.class);

  private final PolicyServer server;
  private final GateBooks books;
  private final List<GateListener> listeners;
  private final int count;
  private final Runnable allReady;
  private final AtomicInteger readyLinks = new AtomicInteger();

  /**
   * What a CMTS sends that we ignore, the first of each kind a minute at WARN, the rest counted
   * (principle 5: a CMTS sent 20,000 Gate-Report-States without a Gate ID, 20,000 WARN lines in 5
   * s).
   */
  private final dev.portcullis.support.LogSummary ignored;

  /** Gate-Infos outstanding at once while a CMTS's gates are checked. */
  static final int CHECK_WINDOW = 64;

  /** {@code allReady} runs once, when each of the {@code count} CMTSs has been ready once. */
  CmtsWatch(
      PolicyServer server,
      GateBooks books,
      List<GateListener> listeners,
      int count,
      Runnable allReady,
      java.time.Clock clock) {
    this.ignored =
        new dev.portcullis.support.LogSummary(
            log, "CMTS messages ignored", java.time.Duration.ofMinutes(1), clock);
    this.server = server;
    this.books = books;
    this.listeners = listeners;
    this.count = count;
    this.allReady = allReady;
  }

  /**
   * After a reconnect, or a takeover: asks the CMTS for each gate held there (Gate-Info), at most
   * {@value #CHECK_WINDOW} at a time so that thousands of gates do not arrive at once; forgets
   * those it no longer has, and says so in one line when all are checked.
   */
  private void check(CmtsLink link) {
    List<Gate> gates = books.of(link.name());
    Iterator<Gate> todo = gates.iterator();
    AtomicInteger left = new AtomicInteger(gates.size());
    AtomicInteger lost = new AtomicInteger();
    Runnable done =
        () -> {
          if (lost.get() > 0) {
            log.warn(
                "CMTS {}: {} of {} gates no longer there after reconnecting; forgotten",
                link.name(),
                lost.get(),
                gates.size());
          } else {
            log.info("CMTS {}: all {} gates there after reconnecting", link.name(), gates.size());
          }
        };
    for (int i = 0; i < CHECK_WINDOW; i++) {
      checkNext(todo, left, lost, done);
    }
  }

  private void checkNext(
      Iterator<Gate> todo, AtomicInteger left, AtomicInteger lost, Runnable done) {
    Gate g;
    synchronized (todo) {
      if (!todo.hasNext()) {
        return;
      }
      g = todo.next();
    }
    server
        .info(g)
        .whenComplete(
            (m, e) -> {
              if (e != null) {
                // not connected (again): the next ready checks them all; the rest are not sent
                log.debug("{}: not checked after reconnecting: {}", g, GateRefusedException.why(e));
                return;
              }
              CompletableFuture<?> squared;
              if (m.command() == GateCommand.GATE_INFO_ERR
                  && m.error() != null
                  && m.error().code() == PcmmErrorCode.UNKNOWN_GATE_ID.code()) {
                squared =
                    books
                        .unfile(g)
                        .thenAccept(
                            had -> {
                              if (had) {
                                lost.incrementAndGet();
                                log.debug(
                                    "{}: the CMTS no longer has it after reconnecting; forgotten",
                                    g);
                                listeners.forEach(
                                    l -> l.lost(g, "CMTS no longer has it after reconnecting"));
                              }
                            });
              } else if (m.command() == GateCommand.GATE_INFO_ACK && m.gateState() != null) {
                squared = stateChanged(g, m.gateState().state());
              } else {
                squared = CompletableFuture.completedFuture(null);
              }
              squared.whenComplete(
                  (x, y) -> {
                    if (left.decrementAndGet() == 0) {
                      done.run();
                    }
                    checkNext(todo, left, lost, done);
                  });
            });
  }

  /**
   * Asks a CMTS of a later issue for every gate set under our PSID (Synch-Request) and squares the
   * books with its answer: a gate held here that it no longer lists is forgotten, a gate it lists
   * that matches a Gate-Set in doubt is that Gate-Set's gate (its answer was lost) and is filed,
   * any other it lists is left alone (set before this server started, or by another server with our
   * PSID). A CMTS that does not complete the synchronisation is checked gate by gate.
   */
  private void synchronise(CmtsLink link) {
    List<GateMessage> reports = new ArrayList<>();
    link.synch(reports::add)
        .whenComplete(
            (complete, e) -> {
              if (e != null) {
                GateRefusedException r =
                    GateRefusedException.cause(e) instanceof GateRefusedException g ? g : null;
                if (r != null
                    && r.kind() == GateRefusedException.Kind.NO_ANSWER
                    && link.isReady()) {
                  log.info(
                      "CMTS {}: Synch-Request not completed ({}); checking its gates one by one",
                      link.name(),
                      GateRefusedException.why(e));
                  check(link);
                } else {
                  // not connected (again): the next ready does it
                  log.debug(
                      "CMTS {}: not synchronised: {}", link.name(), GateRefusedException.why(e));
                }
                return;
              }
              if (complete.command() != GateCommand.SYNCH_COMPLETE) {
                log.info(
                    "CMTS {}: Synch-Request answered {}; checking its gates one by one",
                    link.name(),
                    complete);
                check(link);
                return;
              }
              reconcile(link, reports);
            });
  }

  /**
   * Squares the books with the gates {@code reports} list, in one change on the books' owner (so no
   * Gate-Set or report is filed in between); then tells the listeners and says what it did.
   */
  private void reconcile(CmtsLink link, List<GateMessage> reports) {
    String cmts = link.name();
    Map<Integer, GateMessage> listed = new HashMap<>();
    for (GateMessage m : reports) {
      if (m.gateId() != null && m.gateId().id() != 0) {
        listed.put(m.gateId().id(), m);
      }
    }
    List<Runnable> tell = new ArrayList<>();
    books
        .change(
            () -> {
              int lost = 0;
              for (Gate g : books.of(cmts)) {
                GateMessage m = listed.remove(g.gateId());
                if (m == null) {
                  if (books.unfileHere(g)) {
                    lost++;
                    tell.add(
                        () ->
                            listeners.forEach(
                                l ->
                                    l.lost(
                                        g,
                                        "CMTS no longer has it (synchronised after reconnecting)")));
                  }
                } else if (m.gateState() != null) {
                  Gate now = stateChangedHere(g, m.gateState().state());
                  if (now != null) {
                    tell.add(() -> listeners.forEach(l -> l.stateChanged(now)));
                  }
                }
              }
              int found = 0;
              List<Gate> doubts = new ArrayList<>(server.inDoubt().on(cmts));
              for (GateMessage m : listed.values()) {
                Gate d = match(doubts, m);
                if (d == null) {
                  continue;
                }
                int state =
                    m.gateState() != null ? m.gateState().state() : PcmmObject.GateState.AUTHORIZED;
                Gate g = new Gate(cmts, m.gateId().id(), d.request(), state);
                if (server.inDoubt().foundHere(d, g)) {
                  doubts.remove(d);
                  found++;
                  tell.add(
                      () ->
                          listeners.forEach(
                              l ->
                                  l.set(
                                      g,
                                      "found by synchronisation: its Gate-Set's answer was lost")));
                }
              }
              return new int[] {lost, found};
            })
        .thenAccept(
            counts -> {
              tell.forEach(Runnable::run);
              log.info(
                  "CMTS {}: synchronised: {} gates listed, {} held here no longer there (forgotten),"
                      + " {} Gate-Sets in doubt found and filed, {} not ours left alone",
                  cmts,
                  reports.size(),
                  counts[0],
                  counts[1],
                  listed.size() - counts[1]);
            });
  }

  /**
   * The one Gate-Set in doubt whose request {@code m} lists: the same AMID and subscriber, and the
   * same classifiers when the report carries them (complete gate data); null if none, or several.
   */
  private static Gate match(List<Gate> doubts, GateMessage m) {
    Gate one = null;
    for (Gate d : doubts) {
      GateRequest r = d.request();
      if (r.amid().equals(m.amid())
          && r.subscriber().equals(m.subscriber())
          && (m.classifiers().isEmpty() || m.classifiers().equals(r.classifiers()))) {
        if (one != null) {
          return null; // two candidates: neither is taken for it
        }
        one = d;
      }
    }
    return one;
  }

  /** Files {@code g}'s new state, if it is held and has changed, and tells the listeners. */
  private CompletableFuture<Void> stateChanged(Gate g, int state) {
    return books
        .change(() -> stateChangedHere(g, state))
        .thenAccept(
            now -> {
              if (now != null) {
                listeners.forEach(l -> l.stateChanged(now));
              }
            });
  }

  /** On the books' owner: the gate in its new state, filed; null if not held or not changed. */
  private Gate stateChangedHere(Gate g, int state) {
    Gate held = books.get(g.cmts(), g.gateId());
    if (held == null || held.state() == state) {
      return null;
    }
    Gate now = held.withState(state);
    books.replaceHere(held, now);
    return now;
  }

  @Override
  public void ready(CmtsLink link, boolean again) {
    if (again || !books.of(link.name()).isEmpty() || !server.inDoubt().on(link.name()).isEmpty()) {
      // after a reconnect, or a CMTS taken over with its gates: all at once from a CMTS that took
      // our PDP-Config, else one by one
      link.configured()
          .thenAccept(
              synch -> {
                if (synch) {
                  synchronise(link);
                } else {
                  check(link);
                }
              });
    }
    if (!again && readyLinks.incrementAndGet() == count) {
      log.info("policy server: all {} CMTSs ready", count);
      allReady.run();
    }
  }

  @Override
  public void lost(CmtsLink link, String why) {
    // gates stay filed: the CMTS keeps them, and they are checked when it is back
  }

  @Override
  public void reported(CmtsLink link, GateMessage m) {
    if (m.gateId() == null || m.gateState() == null) {
      String missing = m.gateId() == null ? "a Gate ID" : "a Gate State";
      ignored.warn(
          link.name() + ": Gate-Report-State without " + missing,
          "CMTS {}: Gate-Report-State without {} ignored (more of these are counted, and"
              + " summarised once a minute)",
          link.name(),
          missing);
      return;
    }
    Gate held = books.get(link.name(), m.gateId().id());
    if (held == null) {
      log.debug("CMTS {}: state report for a gate not held here: {}", link.name(), m);
      return;
    }
    if (m.gateState().state() == PcmmObject.GateState.IDLE) {
      books
          .unfile(held)
          .thenAccept(
              had -> {
                if (had) {
                  listeners.forEach(
                      l ->
                          l.deleted(
                              held, "the CMTS closed it (reason " + m.gateState().reason() + ")"));
                }
              });
    } else {
      stateChanged(held, m.gateState().state());
    }
  }
}
