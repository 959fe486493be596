package dev.portcullis.pdp.decision;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.RevokedSubjects;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.pdp.connection.Sessions.Installed;
import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PEP connection's requests and their decisions (RFC 2748 section 3.1): a REQ decided by its
 * client type's engine, installed and answered; unsolicited decisions after a policy change. A
 * synchronous engine answers on the spot; an {@link AsyncPolicyEngine}'s requests go to {@link
 * AsyncDecisions}, which hands back what completes to be installed and answered here. Everything
 * here runs on the connection's event loop.
 */
public final class RequestDecisions implements AsyncDecisions.Completions, RequestLimit.Deciding {
  private static final Logger log = LoggerFactory.getLogger(RequestDecisions.class);

  private final PepLink link;
  private final Sessions sessions;
  private final PdpContext server;

  private final AsyncDecisions later;

  /**
   * @param sessions the state machine's request states, which these decisions install and push
   */
  public RequestDecisions(PepLink link, Sessions sessions) {
    this.link = link;
    this.sessions = sessions;
    this.server = link.server;
    this.later = new AsyncDecisions(link, sessions, this);
  }

  /** Requests still being decided by an asynchronous engine. */
  public int inFlight() {
    return later.inFlight();
  }

  /** Requests of {@code type} being decided by an asynchronous engine. */
  @Override
  public int pending(int type) {
    return later.inFlight() == 0 ? 0 : later.pending(type);
  }

  /** Whether {@code h} of {@code type} is being decided by an asynchronous engine. */
  @Override
  public boolean isPending(int type, Handle h) {
    return later.inFlight() > 0 && later.isPending(type, h);
  }

  /** The PEP deleted a handle: a decision still being made for it will not be installed. */
  public void deleted(int type, Handle h) {
    later.deleted(type, h);
  }

  /** A client type closed (or the connection did): its decisions being made are dropped. */
  public void closed(int type) {
    later.closed(type);
  }

  /** Drops every decision being made (the connection is gone). */
  public void closedAll() {
    later.closedAll();
  }

  /** A REQ for an open client type whose installed requests are {@code s}. */
  public void request(Request r, Map<Handle, Installed> s) {
    long arrived = server.nanoTime();
    int type = r.clientType();
    // max-handles was checked before any client type's handler (RequestLimit).
    // Nothing being decided (always, with a synchronous engine): no look-ups on the hot path.
    boolean pendingHandle = isPending(type, r.handle());
    AccessRequest access = accessRequest(r);
    if (access == null) {
      return;
    }
    String pepId = link.pepId();
    PolicyRequest pr =
        new PolicyRequest(pepId, type, r.context().rType(), r.context().mType(), access);
    RevokedSubjects.Revocation revoked = server.revoked().of(access.subject());
    if (revoked != null) { // an operator revoked the subject: the engine is not asked
      answer(r.handle(), r.context(), pr, revoked.decision(), arrived, s);
      return;
    }
    PolicyEngine engine = server.engine(type);
    if (engine instanceof AsyncPolicyEngine a) {
      if (later.inFlight() >= server.limits().maxPendingDecisions() && !pendingHandle) {
        // An explicit bound on what one PEP can have the engine fetch at once.
        refuse(
            r,
            "pending-decision limit",
            "PEP {}: request refused, {} decisions being made (max-pending-decisions)",
            later.inFlight());
        return;
      }
      later.decideLater(a, pr, r.handle(), r.context(), arrived);
      return;
    }
    answer(r.handle(), r.context(), pr, engine.decide(pr), arrived, s);
  }

  /**
   * Answers a REQ over a limit with "Unable to process" (RFC 2748 error 4), counted in the refusals
   * summary under {@code kind}; {@code format} has the PEP's id, then {@code count}.
   */
  private void refuse(Request r, String kind, String format, int count) {
    link.channel.write(
        Decision.error(
            r.clientType(), r.handle(), new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
    server.refusals().warn(kind, format, link.pepId(), count);
  }

  /** The access request a REQ carries in its first ClientSI, or null after answering its error. */
  private AccessRequest accessRequest(Request r) {
    try {
      return AccessRequest.decode(r.signaledData("the access request"));
    } catch (CopsCodecException e) {
      server
          .refusals()
          .warn(
              "malformed access request",
              "PEP {}: request {} refused: {}",
              link.pepId(),
              r.handle(),
              e.getMessage());
      link.channel.write(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return null;
    }
  }

  @Override
  public void answer(
      Handle h,
      Context ctx,
      PolicyRequest pr,
      PolicyDecision d,
      long arrived,
      Map<Handle, Installed> s) {
    d = unlessRevoked(pr, d); // an asynchronous engine's answer may come after a revocation
    int type = pr.clientType();
    // A REQ on an existing handle updates that request state (RFC 2748 section 3.1); the engine
    // hears of a release only when the state is deleted.
    s.put(h, new Installed(pr, ctx, d));
    Decision dec = decision(type, true, h, ctx, d);
    // Counted before the write, so whoever reads the counter after the PEP has its answer sees
    // it; the latency runs from the REQ's arrival to its DEC being ready to encode.
    long nanos = server.nanoTime() - arrived;
    server.counters().decision(type, d.install(), nanos);
    PdpTimings timings = server.timings();
    if (timings != null) {
      timings.record(PdpTimings.Phase.REQUEST_TO_DECISION, nanos);
    }
    AccessRequest access = pr.access();
    if (server.audit().enabled()) {
      link.audit(
          "decision",
          pr.pepId(),
          "clientType",
          type,
          "handle",
          h.value().toHex(),
          "operation",
          access.operation().name(),
          "subject",
          access.subject(),
          "service",
          access.service(),
          "decision",
          d.install() ? "install" : "remove",
          "rule",
          d.data().ruleId(),
          "reason",
          d.data().reason(),
          "latencyNanos",
          nanos);
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "PEP {} {} {} -> {} ({})",
          pr.pepId(),
          access.operation(),
          access.subject(),
          d.install() ? "install" : "remove",
          d.data().ruleId());
    }
    // Nobody waits on a DEC's write: no promise per decision for the encoder to collect and
    // complete (a write that fails fails the connection, which the pipeline hears of anyway).
    link.channel.write(dec, link.channel.voidPromise());
  }

  public static Decision decision(
      int type, boolean solicited, Handle h, Context ctx, PolicyDecision d) {
    return Decision.of(type, solicited, h, d.decisionSet(ctx));
  }

  // ---- pushes -----------------------------------------------------------------------------------

  /**
   * Decides the installed requests {@code which} selects again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  public void reevaluate(int type, PolicyEngine engine, Predicate<PolicyRequest> which) {
    Map<Handle, Installed> s = sessions.of(type);
    if (s == null || link.closing()) {
      return;
    }
    if (engine instanceof AsyncPolicyEngine a) {
      later.reevaluateLater(type, a, s, which);
      return;
    }
    int pushed = 0;
    for (Map.Entry<Handle, Installed> e : s.entrySet()) {
      Installed i = e.getValue();
      if (which.test(i.request()) && push(type, e.getKey(), i, engine.reevaluate(i.request()))) {
        pushed++;
      }
    }
    if (pushed > 0) {
      link.channel.flush();
      log.info("policy change: {} unsolicited decisions sent to PEP {}", pushed, link.pepId());
    }
  }

  /** {@code d}, or the revocation's Remove where {@code d} installs for a revoked subject. */
  private PolicyDecision unlessRevoked(PolicyRequest pr, PolicyDecision d) {
    if (!d.install()) {
      return d;
    }
    RevokedSubjects.Revocation revoked = server.revoked().of(pr.access().subject());
    return revoked == null ? d : revoked.decision();
  }

  /** Sends {@code d} unsolicited if it differs from what {@code i} holds; true if sent. */
  @Override
  public boolean push(int type, Handle h, Installed i, PolicyDecision d) {
    d = unlessRevoked(i.request(), d);
    if (d.equals(i.decision())) {
      return false;
    }
    sessions.of(type).put(h, new Installed(i.request(), i.context(), d));
    link.channel.write(decision(type, false, h, i.context(), d), link.channel.voidPromise());
    server.counters().pushed();
    link.audit(
        "pushed",
        i.request().pepId(),
        "clientType",
        type,
        "handle",
        h.value().toHex(),
        "decision",
        d.install() ? "install" : "remove",
        "rule",
        d.data().ruleId());
    return true;
  }
}
