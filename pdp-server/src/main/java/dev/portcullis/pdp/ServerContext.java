package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.connection.ConnectionCounters;
import dev.portcullis.pdp.connection.ConnectionLimits;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PdpSecurity;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.decision.RequestDecisions;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.pdp.fleet.FleetMembers;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.tunnel.TunnelDesk;
import dev.portcullis.support.LogSummary;
import dev.portcullis.support.Threads;
import io.netty.util.collection.IntObjectMap;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * The running PDP as its connections see it ({@link PdpContext}): configuration, policies, security
 * material, audit, counters, the registry of open connections, and the enrolment thread.
 */
final class ServerContext implements PdpContext {
  private final PdpConfig config;
  private final IntObjectMap<ClientTypePolicy> policies;
  private final PdpSecurityMaterial material;
  private final AuditLog audit;

  private final Clock clock;

  /** Refusals an outsider can cause at will: the first of a kind logged, the rest counted. */
  private final LogSummary refusals;

  private final LogSummary decisionFailures;
  private final Supplier<InetSocketAddress> address;
  private final PdpStats stats = new PdpStats();

  /** What the connections add to the counters: their only way to {@link PdpStats}' recorders. */
  private final ConnectionCounters counters = stats.counters();

  private final ConnectionLimits limits;
  private final Set<PepConnection> connections = ConcurrentHashMap.newKeySet();
  private final dev.portcullis.pdp.connection.RevokedSubjects revoked =
      new dev.portcullis.pdp.connection.RevokedSubjects();

  /** Notified as decisions end and connections go: what a drain waits on. */
  private final Object settled = new Object();

  /**
   * Drains waiting on {@link #settled} now. Every asynchronous decision that ends reads it, and
   * takes the monitor only when a drain waits: the event loops do not contend for a lock once per
   * decision for the sake of a shutdown. (A waiter counts itself before it looks at the state, and
   * a decision changes the state before it looks at the count: one of the two sees the other.)
   */
  private volatile int waiting;

  private final ExecutorService enrolments;
  private volatile FleetMembers members; // a fleet member: the others and their load
  private volatile TunnelDesk tunnels;
  private volatile boolean draining;
  private volatile boolean cutOff; // the fleet store's session was lost
  private volatile PdpTimings timings;
  private volatile boolean closed;

  /**
   * @param address where the server listens, once it is bound
   */
  ServerContext(
      PdpConfig config,
      IntObjectMap<ClientTypePolicy> policies,
      PdpSecurityMaterial material,
      AuditLog audit,
      Supplier<InetSocketAddress> address,
      Clock clock) {
    this.clock = clock;
    this.refusals =
        new LogSummary(
            LoggerFactory.getLogger(PdpServer.class), "refusals", Duration.ofMinutes(1), clock);
    this.decisionFailures =
        new LogSummary(
            LoggerFactory.getLogger(RequestDecisions.class),
            "failed decisions",
            Duration.ofMinutes(1),
            clock);
    this.config = config;
    this.limits = config.connectionLimits();
    this.policies = policies;
    this.material = material;
    this.audit = audit;
    this.address = address;
    this.enrolments =
        material.enroller == null
            ? null
            : Executors.newSingleThreadExecutor(Threads.daemon("portcullis-pdp-enrolment"));
  }

  PdpConfig config() {
    return config;
  }

  @Override
  public ConnectionLimits limits() {
    return limits;
  }

  @Override
  public dev.portcullis.pdp.connection.RevokedSubjects revoked() {
    return revoked;
  }

  @Override
  public PolicyEngine engine(int clientType) {
    ClientTypePolicy p = policies.get(clientType);
    return p == null ? null : p.engine();
  }

  ClientTypePolicy policy(int clientType) {
    return policies.get(clientType);
  }

  IntObjectMap<ClientTypePolicy> policies() {
    return policies;
  }

  @Override
  public PdpSecurity security() {
    return config.security();
  }

  @Override
  public CopsTls tls() {
    return material.tls;
  }

  @Override
  public boolean enrols() {
    return material.enroller != null;
  }

  /**
   * Runs an enrolment attempt off the event loops (it waits for the disk); one at a time, so the
   * store sees them in order. What each connection's enrolment handler asks ({@link
   * EnrolmentHandler.Desk}).
   */
  CompletableFuture<Enroller.Outcome> enrol(String pepId, Enrolment.Request r) {
    return CompletableFuture.supplyAsync(
        () -> material.enroller.enrol(pepId, r, clock.instant()), enrolments);
  }

  TunnelDesk tunnels() {
    return tunnels;
  }

  @Override
  public boolean grantsTunnels() {
    return tunnels != null;
  }

  void tunnels(TunnelDesk desk) {
    tunnels = desk;
  }

  @Override
  public InetSocketAddress redirectFor(String pepId, int type) {
    for (PdpConfig.Redirect r : config.redirects()) {
      if (r.applies(pepId, type)) {
        return new InetSocketAddress(r.address(), r.port());
      }
    }
    FleetMembers m = members;
    int above = config.fleetOrDefaults().redirectAbove();
    if (m != null && (draining || cutOff || (above > 0 && connections.size() > above))) {
      InetSocketAddress to = m.leastLoadedOther(); // none: this member serves it after all
      if (to != null) {
        return to;
      }
    }
    return null;
  }

  void members(FleetMembers m) {
    members = m;
  }

  FleetMembers members() {
    return members;
  }

  /**
   * Waits until no connection has a decision being made by an asynchronous engine, or until {@code
   * deadlineNanos} ({@link System#nanoTime}).
   *
   * @return the decisions still being made
   */
  int awaitDecisions(long deadlineNanos) {
    awaitSettled(() -> decisionsInFlight() == 0, deadlineNanos);
    return decisionsInFlight();
  }

  /**
   * Waits until every connection has gone, or until {@code deadlineNanos} ({@link
   * System#nanoTime}); returns how many are left.
   */
  int awaitConnectionsGone(long deadlineNanos) {
    awaitSettled(connections::isEmpty, deadlineNanos);
    return connections.size();
  }

  /**
   * Waits for {@code done}, woken by each decision that ends and each connection that goes (no
   * polling: a drain returns the moment its last decision or connection is gone).
   */
  private void awaitSettled(BooleanSupplier done, long deadlineNanos) {
    synchronized (settled) {
      waiting++;
      try {
        while (!done.getAsBoolean()) {
          long left = deadlineNanos - System.nanoTime();
          if (left <= 0) {
            return;
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(settled, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      } finally {
        waiting--;
      }
    }
  }

  @Override
  public void decisionsSettled() {
    if (waiting == 0) {
      return; // no drain: nothing to wake, no lock taken
    }
    synchronized (settled) {
      settled.notifyAll();
    }
  }

  private int decisionsInFlight() {
    int n = 0;
    for (PepConnection c : connections) {
      n += c.decisionsInFlight();
    }
    return n;
  }

  /** Logs what the summaries held back (every minute, from the server's housekeeping). */
  void flushSummaries() {
    refusals.flush();
    decisionFailures.flush();
  }

  /**
   * Sends a Client-Close with {@code code} for every open client type of every connection, then
   * closes them, waiting at most {@code wait} for all to be done.
   */
  void closeConnections(ErrorCode code, Duration wait) {
    CountDownLatch done = new CountDownLatch(connections.size());
    for (PepConnection c : connections) {
      c.execute(
          () -> {
            c.closeAll(code);
            done.countDown();
          });
    }
    try {
      done.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void draining(boolean d) {
    draining = d;
  }

  boolean draining() {
    return draining;
  }

  void cutOff(boolean c) {
    cutOff = c;
  }

  boolean cutOff() {
    return cutOff;
  }

  /** True if a Last PDP Address names this server (same port, and a local or listening address). */
  @Override
  public boolean isSelf(PdpAddress a) {
    InetSocketAddress me = address.get();
    if (a.port() != me.getPort()) {
      return false;
    }
    return a.address().equals(me.getAddress())
        || me.getAddress().isAnyLocalAddress()
        || a.address().isLoopbackAddress() && me.getAddress().isLoopbackAddress();
  }

  @Override
  public AuditLog audit() {
    return audit;
  }

  PdpStats stats() {
    return stats;
  }

  @Override
  public ConnectionCounters counters() {
    return counters;
  }

  @Override
  public PdpTimings timings() {
    return timings;
  }

  void timings(PdpTimings t) {
    timings = t;
  }

  @Override
  public LogSummary refusals() {
    return refusals;
  }

  @Override
  public LogSummary decisionFailures() {
    return decisionFailures;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public boolean register(PepConnection c) {
    if (closed || connections.size() >= config.maxConnections()) {
      return false;
    }
    connections.add(c);
    stats.connected();
    return true;
  }

  @Override
  public void unregister(PepConnection c) {
    if (connections.remove(c)) {
      stats.disconnected();
      decisionsSettled();
    }
  }

  /** The connections open now. */
  Set<PepConnection> connections() {
    return connections;
  }

  /** Admits no more connections. */
  void close() {
    closed = true;
  }

  /** Lets a running enrolment finish, and closes the security material. */
  void release() {
    if (enrolments != null) {
      enrolments.shutdown();
    }
    if (tunnels != null) {
      tunnels.close();
    }
    material.close();
  }
}
