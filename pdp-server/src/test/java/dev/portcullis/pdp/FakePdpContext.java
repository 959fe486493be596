package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.connection.ConnectionCounters;
import dev.portcullis.pdp.connection.ConnectionLimits;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PdpSecurity;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.support.LogSummary;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

/** A PDP for one connection's pipeline in tests: engines set by hand, a clock moved by hand. */
final class FakePdpContext implements PdpContext {
  final Map<Integer, PolicyEngine> engines = new HashMap<>();
  final Set<PepConnection> connections = new LinkedHashSet<>();
  final PdpStats stats = new PdpStats();
  final dev.portcullis.pdp.connection.RevokedSubjects revoked =
      new dev.portcullis.pdp.connection.RevokedSubjects();
  private final ConnectionCounters counters = stats.counters();
  final LogSummary refusals =
      new LogSummary(
          LoggerFactory.getLogger(FakePdpContext.class),
          "refusals",
          Duration.ofMinutes(1),
          Clock.systemUTC());
  PdpConfig config;
  long now = 1_000_000_000L;

  FakePdpContext(List<PdpConfig.Redirect> redirects, int maxMessagesPerSecond, int maxHandles)
      throws Exception {
    this(redirects, maxMessagesPerSecond, maxHandles, 1024);
  }

  FakePdpContext(
      List<PdpConfig.Redirect> redirects,
      int maxMessagesPerSecond,
      int maxHandles,
      int maxPendingDecisions)
      throws Exception {
    config =
        new PdpConfig(
            "test",
            InetAddress.getLoopbackAddress(),
            3288,
            Duration.ofSeconds(30),
            Duration.ZERO,
            Duration.ofSeconds(5),
            64 * 1024,
            maxHandles,
            maxMessagesPerSecond,
            10,
            maxPendingDecisions,
            Map.of(),
            redirects,
            null,
            Duration.ofMinutes(1),
            null,
            null,
            null,
            null,
            null,
            PdpConfig.DEFAULT_DRAIN,
            null);
  }

  @Override
  public ConnectionLimits limits() {
    return config.connectionLimits();
  }

  @Override
  public PolicyEngine engine(int clientType) {
    return engines.get(clientType);
  }

  @Override
  public dev.portcullis.pdp.connection.RevokedSubjects revoked() {
    return revoked;
  }

  @Override
  public PdpSecurity security() {
    return null;
  }

  @Override
  public CopsTls tls() {
    return null;
  }

  @Override
  public boolean enrols() {
    return false;
  }

  @Override
  public Clock clock() {
    return Clock.systemUTC();
  }

  @Override
  public boolean grantsTunnels() {
    return false;
  }

  @Override
  public InetSocketAddress redirectFor(String pepId, int clientType) {
    return config.redirects().stream()
        .filter(r -> r.applies(pepId, clientType))
        .findFirst()
        .map(r -> new InetSocketAddress(r.address(), r.port()))
        .orElse(null);
  }

  /** This PDP is 127.0.0.1:3288. */
  @Override
  public boolean isSelf(PdpAddress a) {
    return a.port() == 3288 && a.address().isLoopbackAddress();
  }

  @Override
  public AuditLog audit() {
    return AuditLog.NONE;
  }

  @Override
  public ConnectionCounters counters() {
    return counters;
  }

  @Override
  public PdpTimings timings() {
    return null;
  }

  @Override
  public LogSummary refusals() {
    return refusals;
  }

  @Override
  public LogSummary decisionFailures() {
    return refusals();
  }

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public boolean register(PepConnection connection) {
    if (connections.size() >= config.maxConnections()) {
      return false;
    }
    return connections.add(connection);
  }

  @Override
  public void unregister(PepConnection connection) {
    connections.remove(connection);
  }
}
