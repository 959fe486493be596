package dev.portcullis.pep.firewall;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MLS sessions the host firewall opens for its subjects (MYSEA's trusted path, done by the
 * host's own PEP; the proxy's {@code <session>} for certificate subjects is the same at the PDP): a
 * subject whose mapping names a level is logged in at that level and categories (LOGIN, on a
 * request state of its own) before its first flow is asked for, and its flows' ACCESS requests are
 * then decided under that session. The session lasts while the subject has a grant at the firewall;
 * the last one dropped logs it out (the login's request state deleted, which the PDP takes as a
 * LOGOUT). A refused login refuses the flows waiting for it; a Remove of the login (a policy change
 * that puts the level outside the subject's clearance) forgets the session, and the firewall ends
 * the subject's flows.
 *
 * <p>Belongs to the firewall's kernel thread, as its flow table does: every method runs there, and
 * the PDP's answers are handed to it through {@code kernel}; no lock.
 */
final class FirewallSessions {
  private static final Logger log = LoggerFactory.getLogger(FirewallSessions.class);
  private static final Context CONTEXT = new Context(Context.R_CONFIGURATION, 0);

  /** A subject's session as the firewall carries it. */
  private static final class Session {
    final String subject;
    final String handle;
    final HostFirewall.SessionLevel level;
    boolean ready;
    int grants;
    final List<Runnable> onReady = new ArrayList<>(1);
    final List<Runnable> onRefused = new ArrayList<>(1);

    Session(String subject, String handle, HostFirewall.SessionLevel level) {
      this.subject = subject;
      this.handle = handle;
      this.level = level;
    }
  }

  private final Map<String, HostFirewall.SessionLevel> levels;
  private final PepClient pep;
  private final FirewallAudit audit;
  private final Executor kernel;
  private final String prefix;
  private final Map<String, Session> bySubject = new HashMap<>();
  private final Map<String, Session> byHandle = new HashMap<>();
  private long sequence;

  /**
   * @param levels each subject with a session and its level (the others have none)
   * @param kernel runs a task on the firewall's kernel thread
   * @param prefix begins the sessions' handles
   */
  FirewallSessions(
      Map<String, HostFirewall.SessionLevel> levels,
      PepClient pep,
      FirewallAudit audit,
      Executor kernel,
      String prefix) {
    this.levels = Map.copyOf(levels);
    this.pep = pep;
    this.audit = audit;
    this.kernel = kernel;
    this.prefix = prefix;
  }

  /** Whether {@code subject}'s flows are decided under a session. */
  boolean carries(String subject) {
    return levels.containsKey(subject);
  }

  /** A grant of {@code subject} was made: counted into its session, logged in if it is not. */
  void grantMade(String subject) {
    Session s = bySubject.get(subject);
    if (s == null) {
      s = login(subject, levels.get(subject));
    }
    s.grants++;
  }

  /**
   * Runs {@code ready} once {@code subject}'s session is logged in (at once when it is), or {@code
   * refused} when its login is refused or gets no answer. The subject has a grant ({@link
   * #grantMade}).
   */
  void whenReady(String subject, Runnable ready, Runnable refused) {
    Session s = bySubject.get(subject);
    if (s == null) {
      refused.run(); // removed meanwhile
    } else if (s.ready) {
      ready.run();
    } else {
      s.onReady.add(ready);
      s.onRefused.add(refused);
    }
  }

  /** A grant of {@code subject} was dropped; the last one ends its session (LOGOUT). */
  void grantDropped(String subject) {
    Session s = bySubject.get(subject);
    if (s == null || --s.grants > 0) {
      return;
    }
    forget(s);
    pep.delete(s.handle, ReasonCode.TEAR); // the PDP ends the session with its login's state
    audit.session(s.handle, "logout", s.subject, s.level.level(), null, null);
    log.info("host firewall: {} has no flow left: logged out", s.subject);
  }

  /** Whether {@code handle} is a session's login. */
  boolean isSession(String handle) {
    return byHandle.containsKey(handle);
  }

  /**
   * The PDP removed the session {@code handle}: forgotten, its login's request state deleted; its
   * subject returned, whose flows the caller ends.
   */
  String removed(String handle, PepDecision d) {
    Session s = byHandle.get(handle);
    forget(s);
    pep.delete(handle, ReasonCode.TEAR);
    audit.session(handle, "removed", s.subject, s.level.level(), d, null);
    log.info(
        "host firewall: {}'s session removed by the PDP: {}",
        s.subject,
        d.data() == null ? "no reason given" : d.data().reason());
    return s.subject;
  }

  private Session login(String subject, HostFirewall.SessionLevel level) {
    Session s = new Session(subject, prefix + "session-" + ++sequence, level);
    bySubject.put(subject, s);
    byHandle.put(s.handle, s);
    pep.request(s.handle, CONTEXT, AccessRequest.login(subject, level.level(), level.categories()))
        .whenComplete((d, e) -> kernel.execute(() -> loggedIn(s, d, e)));
    return s;
  }

  /** On the kernel thread: the login's answer. */
  private void loggedIn(Session s, PepDecision d, Throwable e) {
    audit.session(s.handle, "login", s.subject, s.level.level(), d, e);
    if (bySubject.get(s.subject) != s) {
      return; // logged out meanwhile
    }
    List<Runnable> then;
    if (e == null && d.granted()) {
      s.ready = true;
      log.info(
          "host firewall: {} logged in at level {} {}",
          s.subject,
          s.level.level(),
          s.level.categories());
      then = List.copyOf(s.onReady);
    } else {
      forget(s);
      if (e == null) {
        pep.delete(s.handle, ReasonCode.TEAR); // the refused login's state
      }
      log.info(
          "host firewall: login of {} at level {} refused: {}",
          s.subject,
          s.level.level(),
          e != null ? e.getMessage() : d.data() == null ? "no reason given" : d.data().reason());
      then = List.copyOf(s.onRefused);
    }
    s.onReady.clear();
    s.onRefused.clear();
    then.forEach(Runnable::run);
  }

  private void forget(Session s) {
    bySubject.remove(s.subject, s);
    byHandle.remove(s.handle, s);
  }
}
