package dev.portcullis.pep.proxy;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.support.HostPort;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The proxy's audit records, in the PDP's hash-chained format ({@link AuditLog}; checked by {@code
 * pdp-server verify-audit FILE}): each connection decided, opened, revoked and closed, with the PEP
 * id, listener, handle, subject and addresses. Refusals without a decision (no subject, no PDP) are
 * recorded too; a flood over {@code max-connections} is counted, not recorded per connection.
 */
final class ProxyAudit {
  private final AuditLog log;
  private final String pep;

  ProxyAudit(AuditLog log, String pep) {
    this.log = log;
    this.pep = pep;
  }

  /** The PDP's answer for a connection: {@code d}, or {@code error} (no answer, a failure). */
  void decided(
      ProxyConfig.Listener l,
      String handle,
      String subject,
      InetSocketAddress client,
      PepDecision d,
      Throwable error) {
    if (!log.enabled()) {
      return;
    }
    boolean granted = error == null && d.granted();
    decision(
        l,
        handle,
        subject,
        client,
        error != null ? "none" : granted ? "install" : "remove",
        error != null || d.data() == null ? null : d.data().ruleId(),
        error != null ? error.getMessage() : d.data() == null ? null : d.data().reason());
  }

  /**
   * Admitted on an earlier grant: cached while no PDP is there ({@code grant} null), or reused
   * (grants="reuse") on the request state {@code grant}, which the record names.
   */
  void allowedOnGrant(
      ProxyConfig.Listener l,
      String handle,
      String subject,
      InetSocketAddress client,
      String grant) {
    if (grant == null) {
      decision(
          l, handle, subject, client, "install", null, "an earlier grant is still valid (no PDP)");
      return;
    }
    decision(
        l,
        handle,
        subject,
        client,
        "install",
        null,
        "an earlier grant is still valid (reused; its request state held at the PDP)",
        "grant",
        grant);
  }

  /** A decision record; {@code more}: further name-value pairs. */
  private void decision(
      ProxyConfig.Listener l,
      String handle,
      String subject,
      InetSocketAddress client,
      String decision,
      String rule,
      String reason,
      Object... more) {
    Object[] kv = {
      "subject", subject,
      "client", HostPort.of(client),
      "upstream", HostPort.of(l.upstream()),
      "service", l.service(),
      "decision", decision,
      "rule", rule,
      "reason", reason
    };
    if (more.length > 0) {
      Object[] all = Arrays.copyOf(kv, kv.length + more.length);
      System.arraycopy(more, 0, all, kv.length, more.length);
      kv = all;
    }
    record("proxy-decision", l.name(), handle, kv);
  }

  /** A connection refused before any decision: {@code why} is no-subject or no-pdp. */
  void refused(String listener, InetSocketAddress client, String subject, String why) {
    record(
        "proxy-refused",
        listener,
        null,
        "client",
        HostPort.of(client),
        "subject",
        subject,
        "reason",
        why);
  }

  /**
   * A session the proxy carries: {@code operation} login, change-level or logout, at {@code level},
   * answered {@code d} or failed with {@code error} (neither for a logout).
   */
  void session(
      String listener,
      String handle,
      String operation,
      String subject,
      int level,
      PepDecision d,
      Throwable error) {
    record(
        "proxy-session",
        listener,
        handle,
        "operation",
        operation,
        "subject",
        subject,
        "level",
        level,
        "decision",
        operation.equals("logout") ? null : PepDecision.outcome(d, error),
        "rule",
        PepDecision.rule(d, error),
        "reason",
        PepDecision.reason(d, error));
  }

  /** Bytes may flow: the upstream is connected. */
  void opened(String listener, String handle, InetSocketAddress local) {
    record("proxy-opened", listener, handle, "via", HostPort.of(local));
  }

  /**
   * An unsolicited Remove ({@code d}) cut the connection, or with {@code d} null the PDP's loss
   * under {@code on-pdp-loss="close-all"}.
   */
  void revoked(String listener, String handle, PepDecision d) {
    String rule = d == null || d.data() == null ? null : d.data().ruleId();
    String reason =
        d == null
            ? "PDP lost (on-pdp-loss close-all)"
            : d.data() == null ? null : d.data().reason();
    record("proxy-revoked", listener, handle, "rule", rule, "reason", reason);
  }

  /** The connection ended; bytes each way and how long it lived. */
  void closed(String listener, String handle, long toUpstream, long toClient, long millis) {
    record(
        "proxy-closed",
        listener,
        handle,
        "bytesToUpstream",
        toUpstream,
        "bytesToClient",
        toClient,
        "durationMs",
        millis);
  }

  /** One record: the PEP id, listener and handle (null: left out) first, then {@code kv}. */
  private void record(String event, String listener, String handle, Object... kv) {
    if (!log.enabled()) {
      return;
    }
    Object[] all = new Object[6 + kv.length];
    all[0] = "pep";
    all[1] = pep;
    all[2] = "listener";
    all[3] = listener;
    all[4] = "handle";
    all[5] = handle;
    System.arraycopy(kv, 0, all, 6, kv.length);
    log.record(event, all);
  }
}
