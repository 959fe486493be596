package dev.portcullis.pdp.decision;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.pdp.connection.Sessions.Installed;
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
 * One PEP connection's requests being decided by an {@link AsyncPolicyEngine}: each decision sent
 * when its stage completes, bounded by the client type's decision timeout, under the rules that
 * interface states (superseded, deleted, timed out, closed); and installed requests decided again
 * after a policy change. {@code RequestDecisions} hands requests here and installs and answers what
 * completes. Everything here runs on the connection's event loop.
 */
public final class AsyncDecisions {
  // its own name: the decisions' logs, whichever path made them, are dev.portcullis.pdp.decision's
  private static final Logger log = LoggerFactory.getLogger(AsyncDecisions.class);

  private final PepLink link;
  private final Sessions sessions;
  private final PdpContext server;
  private final Completions decisions;

  /**
   * Where what completes here goes, on the event loop: installed and answered, or pushed
   * (RequestDecisions, which hands requests here: a callback, so the arrow points one way).
   */
  public interface Completions {
    /** Installs {@code d} for the handle, counts, audits and writes the DEC (not flushed). */
    void answer(
        Handle h,
        Context ctx,
        PolicyRequest pr,
        PolicyDecision d,
        long arrived,
        Map<Handle, Installed> session);

    /** Pushes a changed decision for an installed request; false if it did not change. */
    boolean push(int type, Handle h, Installed i, PolicyDecision d);
  }

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

  public AsyncDecisions(PepLink link, Sessions sessions, Completions decisions) {
    this.link = link;
    this.sessions = sessions;
    this.server = link.server;
    this.decisions = decisions;
  }

  /** Requests still being decided. */
  public int inFlight() {
    return inFlight;
  }

  /** Requests of {@code type} being decided, and whether {@code h} is one of them. */
  public int pending(int type) {
    Map<Handle, Pending> ps = pending.get(type);
    return ps == null ? 0 : ps.size();
  }

  public boolean isPending(int type, Handle h) {
    Map<Handle, Pending> ps = pending.get(type);
    return ps != null && ps.containsKey(h);
  }

  public void decideLater(
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
    Duration limit = server.limits().decisionTimeout(type);
    p.timeout =
        link.channel
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
          if (link.channel.eventLoop().inEventLoop()) {
            completed(type, h, p, d, e);
          } else {
            link.channel.eventLoop().execute(() -> completed(type, h, p, d, e));
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
    server.decisionsSettled();
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
    Map<Handle, Installed> s = sessions.of(type);
    if (e != null || d == null) {
      Throwable cause = e == null ? new NullPointerException("null decision") : e;
      failed(type, h, "failed: " + cause);
      return;
    }
    if (s == null || link.closing()) {
      server.engine(type).released(p.request);
      return;
    }
    decisions.answer(h, p.context, p.request, d, p.arrived, s);
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
      link.channel.eventLoop().execute(this::flushNow);
    }
  }

  private void flushNow() {
    flushScheduled = false;
    link.channel.flush();
  }

  private void timedOut(int type, Handle h, Pending p) {
    if (take(type, h, p)) {
      failed(type, h, "no decision within the client type's decision-timeout");
    }
  }

  /** Answers a request its engine could not decide: "Unable to process" (RFC 2748, error 4). */
  private void failed(int type, Handle h, String why) {
    server.counters().failedDecision(type);
    server
        .decisionFailures()
        .warn(
            "client type " + hex(type),
            "PEP {} client type {} handle {}: {}; answered Unable to process",
            link.pepId(),
            hex(type),
            h.value().toHex(),
            why);
    if (!link.closing() && sessions.isOpen(type)) {
      link.channel.write(Decision.error(type, h, new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
      flushSoon();
    }
  }

  /** The PEP deleted a handle: a decision still being made for it will not be installed. */
  public void deleted(int type, Handle h) {
    Map<Handle, Pending> ps = pending.get(type);
    Pending p = ps == null ? null : ps.get(h);
    if (p != null) {
      take(type, h, p);
    }
  }

  /** A client type closed (or the connection did): its decisions being made are dropped. */
  public void closed(int type) {
    Map<Handle, Pending> ps = pending.remove(type);
    if (ps != null) {
      for (Pending p : ps.values()) {
        p.timeout.cancel(false);
      }
      inFlight -= ps.size();
      server.decisionsSettled();
    }
  }

  /** Drops every decision being made (the connection is gone). */
  public void closedAll() {
    for (Integer type : new ArrayList<>(pending.keySet())) {
      closed(type);
    }
  }

  public void reevaluateLater(
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
              link.channel
                  .eventLoop()
                  .execute(
                      () -> {
                        Map<Handle, Installed> now = sessions.of(type);
                        // Only if the request state is still the one decided again.
                        if (now == null || now.get(h) != i || link.closing()) {
                          return;
                        }
                        if (ex != null || d == null) {
                          repushFailed(type, h, ex);
                        } else if (decisions.push(type, h, i, d)) {
                          flushSoon();
                          log.info(
                              "policy change: unsolicited decision for handle {} sent to PEP {}",
                              h.value().toHex(),
                              link.pepId());
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
            link.pepId(),
            hex(type),
            h.value().toHex(),
            String.valueOf(e));
  }
}
