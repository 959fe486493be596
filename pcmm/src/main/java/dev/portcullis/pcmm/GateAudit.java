package dev.portcullis.pcmm;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.util.Objects;

/**
 * Every gate's life in a hash-chained audit log: the policy's decision before the Gate-Set leaves
 * ({@code gate-allowed}), then what became of it: {@code gate-set} with the CMTS's Gate ID, {@code
 * gate-refused} (by the policy or the CMTS, with why), {@code gate-modified}, {@code gate-state},
 * {@code gate-deleted} and {@code gate-lost}, each naming the CMTS, the subscriber and the
 * application manager.
 */
public final class GateAudit implements GateListener {
  private final AuditLog log;

  public GateAudit(AuditLog log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  @Override
  public void allowed(String cmts, GateRequest request, String reason) {
    record("gate-allowed", cmts, request, reason);
  }

  @Override
  public void refused(String cmts, GateRequest request, String reason) {
    record("gate-refused", cmts, request, reason);
  }

  private void record(String event, String cmts, GateRequest request, String reason) {
    log.record(
        event,
        "cmts",
        cmts,
        "subscriber",
        subscriber(request),
        "amid",
        amid(request.amid()),
        "profile",
        profile(request.trafficProfile()),
        "classifiers",
        request.classifiers().size(),
        "reason",
        reason);
  }

  @Override
  public void set(Gate gate, String reason) {
    record("gate-set", gate, "reason", reason);
  }

  @Override
  public void modified(Gate was, Gate now, String reason) {
    record(
        "gate-modified",
        now,
        "reason",
        reason + "; profile now " + profile(now.request().trafficProfile()));
  }

  @Override
  public void deleted(Gate gate, String reason) {
    record("gate-deleted", gate, "reason", reason);
  }

  @Override
  public void lost(Gate gate, String reason) {
    record("gate-lost", gate, "reason", reason);
  }

  @Override
  public void stateChanged(Gate gate) {
    record("gate-state", gate, "state", gate.state());
  }

  private void record(String event, Gate g, String key, Object value) {
    log.record(
        event,
        "cmts",
        g.cmts(),
        "gate",
        String.format("%08x", g.gateId()),
        "subscriber",
        subscriber(g.request()),
        "amid",
        amid(g.request().amid()),
        key,
        value);
  }

  private static String subscriber(GateRequest r) {
    return r.subscriber().address().getHostAddress();
  }

  private static String amid(PcmmObject.Amid a) {
    return a.applicationType() + "/" + a.applicationManagerTag();
  }

  /** A traffic profile in a few words: the service class by name, or the profile's kind. */
  static String profile(TrafficProfile p) {
    return p instanceof TrafficProfile.ServiceClassName s
        ? "service class " + s.name()
        : EngineGatePolicy.service(p) + ", envelope " + p.envelope();
  }
}
