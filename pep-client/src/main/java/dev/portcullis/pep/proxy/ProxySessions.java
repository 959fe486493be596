package dev.portcullis.pep.proxy;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MLS sessions the proxy carries for certificate subjects (MYSEA's trusted path, done by the
 * proxy a user's connections go through): a subject's first connection to a listener with {@code
 * <session>} logs it in at that listener's level and categories (LOGIN), on a request state of its
 * own; its connections' ACCESS requests are then decided under that session; the end of its last
 * connection ends the session (the login's request state is deleted, which the PDP takes as a
 * LOGOUT). A connection at another level is refused, or with {@code on-other-level="move"} moves
 * the session (CHANGE_LEVEL): the PDP then removes the subject's decisions the new level no longer
 * allows, and the proxy cuts those connections. One session per subject at a time, as in MYSEA.
 *
 * <p>After a reconnect the PEP sends its installed requests again, the login first, so a session
 * follows the proxy to the next PDP of a fleet.
 *
 * <p>Belongs to the proxy's books ({@link Owners}): every method but {@link #size} runs on the
 * books' loop, the PEP's, where the sessions' decisions arrive too; no lock.
 */
final class ProxySessions {
  private static final Logger log = LoggerFactory.getLogger(ProxySessions.class);
  private static final Context CONTEXT = new Context(Context.R_CONFIGURATION, 0);

  /** A subject's session as this proxy carries it. */
  static final class Session {
    final String subject;
    final String handle;
    int level;
    final List<String> categories;
    int connections;
    CompletableFuture<Void> ready;

    Session(String subject, String handle, int level, List<String> categories) {
      this.subject = subject;
      this.handle = handle;
      this.level = level;
      this.categories = categories;
    }
  }

  /** Why a connection cannot have its session. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final PepClient pep;
  private final ProxyAudit audit;
  // written on the books' loop only; read anywhere for its size
  private final Map<String, Session> bySubject = new ConcurrentHashMap<>();
  private final Map<String, Session> byHandle = new HashMap<>();
  private long sequence;

  ProxySessions(PepClient pep, ProxyAudit audit) {
    this.pep = pep;
    this.audit = audit;
  }

  /**
   * Counts a connection of {@code subject} into its session at the listener's level, logging in or
   * moving the session first where needed. The connection must {@link #leave} the returned session
   * when it ends, whatever became of it; the session's {@code ready} fails with {@link Refused}
   * when the connection may not go on.
   */
  Session enter(String subject, String listener, ProxyConfig.Session want) {
    Session s = bySubject.get(subject);
    if (s == null) {
      s =
          new Session(
              subject, "session:" + subject + ":" + ++sequence, want.level(), want.categories());
      bySubject.put(subject, s);
      byHandle.put(s.handle, s);
      Session login = s;
      s.ready =
          ask(s, "login", AccessRequest.login(subject, want.level(), want.categories()), listener)
              .whenComplete(
                  (v, e) -> {
                    if (e != null) {
                      forget(login);
                      pep.delete(login.handle, ReasonCode.TEAR); // the refused login's state
                    }
                  });
    } else if (s.level != want.level() || !s.categories.equals(want.categories())) {
      if (!want.move() || !s.categories.equals(want.categories())) {
        Session refused = new Session(subject, s.handle, s.level, s.categories);
        refused.connections = -1; // counted nowhere: leave() ignores it
        refused.ready =
            CompletableFuture.failedFuture(
                new Refused(
                    subject
                        + "'s session is at level "
                        + s.level
                        + " "
                        + s.categories
                        + ", this listener's at "
                        + want.level()
                        + " "
                        + want.categories()
                        + (want.move() ? " (categories do not move)" : "")));
        return refused;
      }
      Session moving = s;
      int from = s.level;
      s.level = want.level();
      // after whatever the session is waiting for: one request at a time on its handle
      s.ready =
          s.ready.thenCompose(
              v ->
                  ask(
                          moving,
                          "change-level",
                          AccessRequest.changeLevel(subject, want.level()),
                          listener)
                      .whenComplete(
                          (x, e) -> {
                            if (e != null) {
                              stayAt(moving, from, listener);
                            }
                          }));
    }
    s.connections++;
    return s;
  }

  /**
   * A refused move: the session stays where it was (the PDP did not move it), and its request state
   * is a LOGIN at that level again, so that a reconnect sends what holds.
   */
  private void stayAt(Session s, int level, String listener) {
    if (bySubject.get(s.subject) != s) {
      return; // ended meanwhile (its login failed, or its last connection went)
    }
    s.level = level;
    pep.request(s.handle, CONTEXT, AccessRequest.login(s.subject, level, s.categories))
        .whenComplete(
            (d, e) -> {
              if (e != null || !d.granted()) {
                audit.session(listener, s.handle, "login", s.subject, level, d, e);
                forget(s); // the session is gone: its connections' access goes with it
              }
            });
  }

  private CompletableFuture<Void> ask(
      Session s, String what, AccessRequest request, String listener) {
    int level = request.sessionLevel() != null ? request.sessionLevel() : request.requestedLevel();
    return pep.request(s.handle, CONTEXT, request)
        .handle(
            (d, e) -> {
              audit.session(listener, s.handle, what, s.subject, level, d, e);
              if (e == null && d.granted()) {
                log.info("proxy: {} {} at level {} {}", s.subject, what, level, s.categories);
                return null;
              }
              String why =
                  e != null
                      ? (e instanceof CompletionException && e.getCause() != null
                              ? e.getCause()
                              : e)
                          .getMessage()
                      : d.data() == null ? "no reason given" : d.data().reason();
              log.info("proxy: {} of {} at level {} refused: {}", what, s.subject, level, why);
              throw new Refused(what + " at level " + level + " refused: " + why);
            });
  }

  /**
   * A connection that {@link #enter}ed {@code s} ended; the last one ends the session (LOGOUT):
   * returns true then.
   */
  boolean leave(Session s) {
    if (s.connections < 0 || bySubject.get(s.subject) != s || --s.connections > 0) {
      return false; // refused, ended already, or not the last
    }
    forget(s);
    pep.delete(s.handle, ReasonCode.TEAR); // the PDP ends the session with its login's state
    audit.session(null, s.handle, "logout", s.subject, s.level, null, null);
    log.info("proxy: {}'s last connection ended: logged out", s.subject);
    return true;
  }

  /**
   * If {@code handle} is a session's and {@code d} removes it, the session is forgotten (the PDP
   * ended it) and its subject returned; otherwise null.
   */
  String removed(String handle, PepDecision d) {
    Session s = byHandle.get(handle);
    if (s == null || d.granted()) {
      return null;
    }
    forget(s); // its connections' access is removed by the PDP, and cut as each DEC comes
    pep.delete(handle, ReasonCode.TEAR);
    log.info(
        "proxy: {}'s session removed by the PDP: {}",
        s.subject,
        d.data() == null ? "no reason given" : d.data().reason());
    return s.subject;
  }

  private void forget(Session s) {
    if (bySubject.get(s.subject) == s) {
      bySubject.remove(s.subject);
    }
    byHandle.remove(s.handle);
  }

  /** Subjects with a session now. */
  int size() {
    return bySubject.size();
  }
}
