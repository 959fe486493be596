package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.support.LogSummary;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.LoggerFactory;

/** A PDP for one connection's pipeline in tests: engines set by hand, a clock moved by hand. */
final class FakePdpContext implements PdpContext {
  final Map<Integer, PolicyEngine> engines = new HashMap<>();
  final Set<PepConnection> connections = new LinkedHashSet<>();
  final PdpStats stats = new PdpStats();
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
            PdpConfig.DEFAULT_DRAIN);
  }

  @Override
  public PdpConfig config() {
    return config;
  }

  @Override
  public PolicyEngine engine(int clientType) {
    return engines.get(clientType);
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
  public CompletableFuture<Enroller.Outcome> enrol(String pepId, Enrolment.Request r) {
    throw new UnsupportedOperationException("this PDP does not enrol");
  }

  @Override
  public Clock clock() {
    return Clock.systemUTC();
  }

  @Override
  public TunnelDesk tunnels() {
    return null;
  }

  @Override
  public PdpConfig.Redirect redirectFor(String pepId, int clientType) {
    return config.redirects().stream()
        .filter(r -> r.applies(pepId, clientType))
        .findFirst()
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
  public PdpStats stats() {
    return stats;
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
