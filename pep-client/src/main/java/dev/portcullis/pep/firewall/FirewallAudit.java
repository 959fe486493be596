package dev.portcullis.pep.firewall;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.pep.PepDecision;

/**
 * The host firewall's audit records, in the PDP's hash-chained format ({@link AuditLog}; checked by
 * {@code pdp-server verify-audit FILE}): each decision asked of the PDP, each flow let in on a
 * grant or refused, each flow ended (revoked, the PDP lost, or over), with the PEP id, the handle,
 * the subject, the service and the flow's addresses.
 */
record FirewallAudit(AuditLog log, String pep) {

  /** The PDP's answer on {@code handle} for {@code flow}: {@code d}, or {@code error} (none). */
  void decided(
      String handle, String subject, String service, Flow flow, PepDecision d, Throwable error) {
    record(
        "firewall-decision",
        handle,
        subject,
        service,
        flow,
        "decision",
        PepDecision.outcome(d, error),
        "rule",
        PepDecision.rule(d, error),
        "reason",
        PepDecision.reason(d, error));
  }

  /** {@code flow} let in on the grant {@code handle} without asking (within its validity). */
  void allowedOnGrant(String handle, String subject, String service, Flow flow) {
    record(
        "firewall-flow",
        handle,
        subject,
        service,
        flow,
        "decision",
        "install",
        "reason",
        "the subject's grant for the service is still valid");
  }

  /** A flow refused before any decision: no subject names its source. */
  void refused(Flow flow, String service, String why) {
    record("firewall-refused", null, null, service, flow, "reason", why);
  }

  /**
   * {@code flow} ended in the kernel: {@code why} is remove, refused-again, pdp-lost, idle,
   * session-refused or session-removed.
   */
  void ended(String handle, String subject, String service, Flow flow, String why) {
    record("firewall-ended", handle, subject, service, flow, "reason", why);
  }

  /**
   * The session {@code handle} of {@code subject} at {@code level}: its login (answered {@code d},
   * or {@code error}), its logout, or its removal by the PDP.
   */
  void session(
      String handle, String operation, String subject, int level, PepDecision d, Throwable error) {
    if (!log.enabled()) {
      return;
    }
    log.record(
        "firewall-session",
        "pep",
        pep,
        "handle",
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

  private void record(
      String event, String handle, String subject, String service, Flow flow, Object... more) {
    if (!log.enabled()) {
      return;
    }
    Object[] kv = new Object[12 + more.length];
    int i = 0;
    kv[i++] = "pep";
    kv[i++] = pep;
    kv[i++] = "handle";
    kv[i++] = handle;
    kv[i++] = "subject";
    kv[i++] = subject;
    kv[i++] = "service";
    kv[i++] = service;
    kv[i++] = "client";
    kv[i++] = flow.source().getHostAddress() + ":" + flow.sourcePort();
    kv[i++] = "server";
    kv[i++] = flow.destination().getHostAddress() + ":" + flow.destinationPort();
    System.arraycopy(more, 0, kv, i, more.length);
    log.record(event, kv);
  }
}
