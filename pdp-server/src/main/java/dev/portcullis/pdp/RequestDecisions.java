package dev.portcullis.pdp;

import static dev.portcullis.pdp.ConnectionState.hex;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.ConnectionState.Installed;
import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PEP connection's requests and their decisions (RFC 2748 section 3.1): a REQ decided by its
 * client type's engine, installed and answered; unsolicited decisions after a policy change. A
 * synchronous engine answers on the spot; an {@link AsyncPolicyEngine}'s decisions are sent when
 * they complete, bounded by the client type's decision timeout, under the rules that interface
 * states. Everything here runs on the connection's event loop.
 */
final class RequestDecisions {
  private static final Logger log = LoggerFactory.getLogger(RequestDecisions.class);

  private final ConnectionState state;
  private final PdpContext server;

  /** A request an asynchronous engine is deciding. */
  private static final class Pending {
    final PolicyRequest request;
    final Context context;
    final long arrived;
    ScheduledFuture<?> timeout;
    boolean superseded; // a later REQ on the handle replaced it: no release when it completes

    Pending(PolicyRequest request, Context context, long arrived) {
      this.request = request;
      this.context = context;
      this.arrived = arrived;
    }
  }

  /** Requests being decided asynchronously, per client type, by handle. */
  private final Map<Integer, Map<Handle, Pending>> pending = new HashMap<>();

  /** A flush is queued on the event loop ({@link #flushSoon}). */
  private boolean flushScheduled;

  /** How many requests are being decided (read by the server's drain from another thread). */
  private volatile int inFlight;

  RequestDecisions(ConnectionState state) {
    this.state = state;
    this.server = state.server;
  }

  /** Requests still being decided by an asynchronous engine. */
  int inFlight() {
    return inFlight;
  }

  /** A REQ for an open client type whose installed requests are {@code s}. */
  void request(Request r, Map<Handle, Installed> s) {
    long arrived = server.nanoTime();
    int type = r.clientType();
    Map<Handle, Pending> ps = pending.get(type);
    int held = s.size() + (ps == null ? 0 : ps.size());
    if (!s.containsKey(r.handle())
        && (ps == null || !ps.containsKey(r.handle()))
        && held >= server.config().maxHandles()) {
      refuse(r, "handle limit", "PEP {}: request refused, {} handles open (limit)", held);
      return;
    }
    AccessRequest access = accessRequest(r);
    if (access == null) {
      return;
    }
    PolicyRequest pr =
        new PolicyRequest(state.pepId, type, r.context().rType(), r.context().mType(), access);
    PolicyEngine engine = server.engine(type);
    if (engine instanceof AsyncPolicyEngine a) {
      if (inFlight >= server.config().maxPendingDecisions()
          && (ps == null || !ps.containsKey(r.handle()))) {
        // An explicit bound on what one PEP can have the engine fetch at once.
        refuse(
            r,
            "pending-decision limit",
            "PEP {}: request refused, {} decisions being made (max-pending-decisions)",
            inFlight);
        return;
      }
      decideLater(a, pr, r.handle(), r.context(), arrived);
      return;
    }
    answer(r.handle(), r.context(), pr, engine.decide(pr), arrived, s);
  }

  /**
   * Answers a REQ over a limit with "Unable to process" (RFC 2748 error 4), counted in the refusals
   * summary under {@code kind}; {@code format} has the PEP's id, then {@code count}.
   */
  private void refuse(Request r, String kind, String format, int count) {
    state.channel.write(
        Decision.error(
            r.clientType(), r.handle(), new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
    server.refusals().warn(kind, format, state.pepId, count);
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
              state.pepId,
              r.handle(),
              e.getMessage());
      state.channel.write(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return null;
    }
  }

  /** Installs {@code d} for the handle, counts, audits and writes the DEC (not flushed). */
  private void answer(
      Handle h,
      Context ctx,
      PolicyRequest pr,
      PolicyDecision d,
      long arrived,
      Map<Handle, Installed> s) {
    int type = pr.clientType();
    // A REQ on an existing handle updates that request state (RFC 2748 section 3.1); the engine
    // hears of a release only when the state is deleted.
    s.put(h, new Installed(pr, ctx, d));
    Decision dec = decision(type, true, h, ctx, d);
    // Counted before the write, so whoever reads the counter after the PEP has its answer sees
    // it; the latency runs from the REQ's arrival to its DEC being ready to encode.
    long nanos = server.nanoTime() - arrived;
    server.stats().decision(type, d.install(), nanos);
    PdpTimings timings = server.timings();
    if (timings != null) {
      timings.record(PdpTimings.Phase.REQUEST_TO_DECISION, nanos);
    }
    AccessRequest access = pr.access();
    if (server.audit().enabled()) {
      state.audit(
          "decision",
          state.pepId,
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
          state.pepId,
          access.operation(),
          access.subject(),
          d.install() ? "install" : "remove",
          d.data().ruleId());
    }
    state.channel.write(dec);
  }

  static Decision decision(int type, boolean solicited, Handle h, Context ctx, PolicyDecision d) {
    DecisionFlags flags =
        new DecisionFlags(false, d.install() ? DecisionCommand.INSTALL : DecisionCommand.REMOVE);
    return Decision.of(
        type, solicited, h, new DecisionSet(ctx, flags, null, null, d.decisionData(), null));
  }

  // ---- asynchronous engines ---------------------------------------------------------------------

  private void decideLater(
      AsyncPolicyEngine engine, PolicyRequest pr, Handle h, Context ctx, long arrived) {
    int type = pr.clientType();
    Pending p = new Pending(pr, ctx, arrived);
    Pending old = pending.computeIfAbsent(type, t -> new HashMap<>()).put(h, p);
    if (old != null) {
      old.superseded = true;
      old.timeout.cancel(false);
    } else {
      inFlight++;
    }
    PdpConfig.ClientTypeConfig c = server.config().clientTypes().get(type);
    Duration limit = c == null ? PdpConfig.DEFAULT_DECISION_TIMEOUT : c.decisionTimeout();
    p.timeout =
        state
            .channel
            .eventLoop()
            .schedule(() -> timedOut(type, h, p), limit.toNanos(), TimeUnit.NANOSECONDS);
    CompletionStage<PolicyDecision> stage;
    try {
      stage = engine.decideAsync(pr);
    } catch (RuntimeException e) {
      completed(type, h, p, null, e);
      return;
    }
    if (stage == null) {
      completed(type, h, p, null, new NullPointerException("decideAsync returned null"));
      return;
    }
    stage.whenComplete(
        (d, e) -> {
          if (state.channel.eventLoop().inEventLoop()) {
            completed(type, h, p, d, e);
          } else {
            state.channel.eventLoop().execute(() -> completed(type, h, p, d, e));
          }
        });
  }

  /** True if {@code p} is still the request being decided for the handle; if so, forgets it. */
  private boolean take(int type, Handle h, Pending p) {
    Map<Handle, Pending> ps = pending.get(type);
    if (ps == null || ps.get(h) != p) {
      return false;
    }
    ps.remove(h);
    inFlight--;
    p.timeout.cancel(false);
    return true;
  }

  private void completed(int type, Handle h, Pending p, PolicyDecision d, Throwable e) {
    if (!take(type, h, p)) {
      // Deleted, timed out or lost with its connection while being decided: never installed.
      if (e == null && d != null && !p.superseded) {
        PolicyEngine engine = server.engine(type);
        if (engine != null) {
          engine.released(p.request);
        }
      }
      return;
    }
    Map<Handle, Installed> s = state.sessions.get(type);
    if (e != null || d == null) {
      Throwable cause = e == null ? new NullPointerException("null decision") : e;
      failed(type, h, "failed: " + cause);
      return;
    }
    if (s == null || state.closing) {
      server.engine(type).released(p.request);
      return;
    }
    answer(h, p.context, p.request, d, p.arrived, s);
    flushSoon();
  }

  /**
   * Flushes once the event loop has run what is queued before it: decisions completing together (a
   * burst handed back from an engine's thread, or completed inside a read batch, which {@code
   * channelReadComplete} flushes anyway) leave in one write. A flush per decision made an engine
   * that completes at once 0.28x the synchronous one's throughput (AsyncEngineLoad, 32 pipelined).
   */
  private void flushSoon() {
    if (!flushScheduled) {
      flushScheduled = true;
      state.channel.eventLoop().execute(this::flushNow);
    }
  }

  private void flushNow() {
    flushScheduled = false;
    state.channel.flush();
  }

  private void timedOut(int type, Handle h, Pending p) {
    if (take(type, h, p)) {
      failed(type, h, "no decision within the client type's decision-timeout");
    }
  }

  /** Answers a request its engine could not decide: "Unable to process" (RFC 2748, error 4). */
  private void failed(int type, Handle h, String why) {
    server.stats().failedDecision(type);
    server
        .decisionFailures()
        .warn(
            "client type " + hex(type),
            "PEP {} client type {} handle {}: {}; answered Unable to process",
            state.pepId,
            hex(type),
            h.value().toHex(),
            why);
    if (!state.closing && state.sessions.containsKey(type)) {
      state.channel.write(Decision.error(type, h, new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
      flushSoon();
    }
  }

  /** The PEP deleted a handle: a decision still being made for it will not be installed. */
  void deleted(int type, Handle h) {
    Map<Handle, Pending> ps = pending.get(type);
    Pending p = ps == null ? null : ps.get(h);
    if (p != null) {
      take(type, h, p);
    }
  }

  /** A client type closed (or the connection did): its decisions being made are dropped. */
  void closed(int type) {
    Map<Handle, Pending> ps = pending.remove(type);
    if (ps != null) {
      for (Pending p : ps.values()) {
        p.timeout.cancel(false);
      }
      inFlight -= ps.size();
    }
  }

  /** Drops every decision being made (the connection is gone). */
  void closedAll() {
    for (Integer type : new ArrayList<>(pending.keySet())) {
      closed(type);
    }
  }

  // ---- pushes -----------------------------------------------------------------------------------

  /**
   * Decides the installed requests {@code which} selects again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  void reevaluate(int type, PolicyEngine engine, Predicate<PolicyRequest> which) {
    Map<Handle, Installed> s = state.sessions.get(type);
    if (s == null || state.closing) {
      return;
    }
    if (engine instanceof AsyncPolicyEngine a) {
      reevaluateLater(type, a, s, which);
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
      state.channel.flush();
      log.info("policy change: {} unsolicited decisions sent to PEP {}", pushed, state.pepId);
    }
  }

  /** Sends {@code d} unsolicited if it differs from what {@code i} holds; true if sent. */
  private boolean push(int type, Handle h, Installed i, PolicyDecision d) {
    if (d.equals(i.decision())) {
      return false;
    }
    state.sessions.get(type).put(h, new Installed(i.request(), i.context(), d));
    state.channel.write(decision(type, false, h, i.context(), d));
    server.stats().pushed();
    state.audit(
        "pushed",
        state.pepId,
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

  private void reevaluateLater(
      int type,
      AsyncPolicyEngine engine,
      Map<Handle, Installed> s,
      Predicate<PolicyRequest> which) {
    List<Map.Entry<Handle, Installed>> chosen = new ArrayList<>();
    for (Map.Entry<Handle, Installed> e : s.entrySet()) {
      if (which.test(e.getValue().request())) {
        chosen.add(Map.entry(e.getKey(), e.getValue()));
      }
    }
    for (Map.Entry<Handle, Installed> e : chosen) {
      Handle h = e.getKey();
      Installed i = e.getValue();
      CompletionStage<PolicyDecision> stage;
      try {
        stage = engine.reevaluateAsync(i.request());
      } catch (RuntimeException ex) {
        repushFailed(type, h, ex);
        continue;
      }
      if (stage == null) {
        repushFailed(type, h, new NullPointerException("reevaluateAsync returned null"));
        continue;
      }
      stage.whenComplete(
          (d, ex) ->
              state
                  .channel
                  .eventLoop()
                  .execute(
                      () -> {
                        Map<Handle, Installed> now = state.sessions.get(type);
                        // Only if the request state is still the one decided again.
                        if (now == null || now.get(h) != i || state.closing) {
                          return;
                        }
                        if (ex != null || d == null) {
                          repushFailed(type, h, ex);
                        } else if (push(type, h, i, d)) {
                          flushSoon();
                          log.info(
                              "policy change: unsolicited decision for handle {} sent to PEP {}",
                              h.value().toHex(),
                              state.pepId);
                        }
                      }));
    }
  }

  private void repushFailed(int type, Handle h, Throwable e) {
    server
        .decisionFailures()
        .warn(
            "client type " + hex(type) + " re-decision",
            "PEP {} client type {} handle {}: deciding again after a policy change failed: {};"
                + " the installed decision stands",
            state.pepId,
            hex(type),
            h.value().toHex(),
            String.valueOf(e));
  }
}
