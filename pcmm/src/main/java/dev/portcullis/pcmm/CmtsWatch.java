package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each CMTS tells its policy server, on the CMTS's event loop: that it is ready (then each
 * gate held there is asked for: after a reconnect, or a CMTS taken over with its gates), that it
 * was lost (its gates stay filed: the CMTS keeps them), and its Gate-Report-States.
 */
final class CmtsWatch implements CmtsLink.Events {
  private static final Logger log = LoggerFactory.getLogger(PolicyServer.class);

  private final PolicyServer server;
  private final GateBooks books;
  private final List<GateListener> listeners;
  private final int count;
  private final Runnable allReady;
  private final AtomicInteger readyLinks = new AtomicInteger();

  /**
   * What a CMTS sends that we ignore, the first of each kind a minute at WARN, the rest counted
   * (principle 5: a CMTS sent 20,000 Gate-Report-States without a Gate ID, 20,000 WARN lines in 5
   * s). Not injected: its clock only paces log lines.
   */
  private final dev.portcullis.support.LogSummary ignored =
      new dev.portcullis.support.LogSummary(
          log,
          "CMTS messages ignored",
          java.time.Duration.ofMinutes(1),
          java.time.Clock.systemUTC());

  /** Gate-Infos outstanding at once while a CMTS's gates are checked. */
  static final int CHECK_WINDOW = 64;

  /** {@code allReady} runs once, when each of the {@code count} CMTSs has been ready once. */
  CmtsWatch(
      PolicyServer server,
      GateBooks books,
      List<GateListener> listeners,
      int count,
      Runnable allReady) {
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
              if (m.command() == GateCommand.GATE_INFO_ERR
                  && m.error() != null
                  && m.error().code() == PcmmErrorCode.UNKNOWN_GATE_ID.code()) {
                if (books.unfile(g)) {
                  lost.incrementAndGet();
                  log.debug("{}: the CMTS no longer has it after reconnecting; forgotten", g);
                  listeners.forEach(l -> l.lost(g, "CMTS no longer has it after reconnecting"));
                }
              } else if (m.command() == GateCommand.GATE_INFO_ACK && m.gateState() != null) {
                stateChanged(g, m.gateState().state());
              }
              if (left.decrementAndGet() == 0) {
                done.run();
              }
              checkNext(todo, left, lost, done);
            });
  }

  private void stateChanged(Gate g, int state) {
    Gate held = books.get(g.cmts(), g.gateId());
    if (held == null || held.state() == state) {
      return;
    }
    Gate now = held.withState(state);
    if (books.replace(held, now)) {
      listeners.forEach(l -> l.stateChanged(now));
    }
  }

  @Override
  public void ready(CmtsLink link, boolean again) {
    if (again || !books.of(link.name()).isEmpty()) {
      check(link); // after a reconnect, or a CMTS taken over with its gates
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
      if (books.unfile(held)) {
        listeners.forEach(
            l -> l.deleted(held, "the CMTS closed it (reason " + m.gateState().reason() + ")"));
      }
    } else {
      stateChanged(held, m.gateState().state());
    }
  }
}
