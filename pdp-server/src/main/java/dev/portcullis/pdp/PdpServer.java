package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.RegistryStatus;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.connection.PepView;
import dev.portcullis.pdp.connection.RevokedSubjects;
import dev.portcullis.pdp.control.ControlApi;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.pdp.fleet.FleetMembers;
import dev.portcullis.pdp.fleet.FleetRevocations;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.pdp.policy.mls.MlsEngine;
import dev.portcullis.pdp.tunnel.TunnelAuthority;
import dev.portcullis.pdp.tunnel.TunnelBook;
import dev.portcullis.pdp.tunnel.TunnelDesk;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.AcceptFailures;
import dev.portcullis.support.Binding;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The COPS Policy Decision Point: a Netty server whose PEP connections are pipelines of
 * single-purpose handlers ({@link PdpChannelInitializer}), the configured policy engine per client
 * type, policy reloads that push changed decisions, audit and counters, and a graceful shutdown
 * that sends every PEP a Client-Close "shutting down".
 *
 * <p>Decisions are computed on the connection's event loop: the engines are fast, and handing a
 * request to another thread costs more than deciding it.
 */
public final class PdpServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(PdpServer.class);
  private static final Transport TRANSPORT = Transport.best();

  private final PdpConfig config;
  private final ServerContext context;
  private final PdpPolicies policies; // reloads, watches and pushes the client types' policies
  private final PdpSecurityMaterial security;
  private final AuditLog audit;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ScheduledExecutorService housekeeping;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean started; // bound and recorded so: only then is a stop recorded
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  private Channel serverChannel;
  private volatile MetricsEndpoint metrics; // null unless <metrics> is configured
  private volatile boolean draining; // SIGTERM: sending PEPs away before stopping
  private final StateStore store; // null: nothing shared
  private FleetMember fleet; // with a ZooKeeper store: this PDP's part in the fleet
  private volatile FleetRevocations fleetRevocations; // and the fleet's revocations

  /**
   * Shared state changed under installed decisions (engines call it from store threads): bound to
   * the server once it exists; changes before that have no installed decisions to touch.
   */
  private static final class SharedStateChanges {
    volatile BiConsumer<Integer, Predicate<PolicyRequest>> target;

    void changed(int clientType, Predicate<PolicyRequest> affected) {
      BiConsumer<Integer, Predicate<PolicyRequest>> t = target;
      if (t != null) {
        t.accept(clientType, affected);
      }
    }
  }

  private PdpServer(
      PdpConfig config,
      IntObjectMap<ClientTypePolicy> policies,
      AuditLog audit,
      PdpSecurityMaterial security,
      int threads,
      StateStore store,
      Clock clock) {
    this.config = config;
    this.store = store;
    this.audit = audit;
    this.security = security;
    this.context = new ServerContext(config, policies, security, audit, this::address, clock);
    this.policies = new PdpPolicies(context, audit, closed::get);
    this.boss = TRANSPORT.group(1);
    this.workers = TRANSPORT.group(threads);
    this.housekeeping = Threads.owner("portcullis-pdp-housekeeping");
  }

  /**
   * Loads the policies of every configured client type and starts listening.
   *
   * @param threads event-loop threads for connections (0: Netty's default, twice the cores)
   * @throws ConfigException if a policy file or engine name is wrong
   * @throws IOException if the port cannot be bound or the audit file opened
   */
  public static PdpServer start(PdpConfig config, int threads) throws ConfigException, IOException {
    return start(config, threads, Clock.systemUTC());
  }

  /**
   * As {@link #start(PdpConfig, int)}, on {@code clock}: the wall clock the connections judge
   * Integrity keys' validity by, the tunnel desk its lifetimes, the log summaries their minutes (a
   * test moves it by hand rather than sleep).
   */
  public static PdpServer start(PdpConfig config, int threads, Clock clock)
      throws ConfigException, IOException {
    StateStore store = FleetMember.openStore(config);
    try {
      return start(config, threads, store, clock);
    } catch (ConfigException | IOException | RuntimeException e) {
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  private static PdpServer start(PdpConfig config, int threads, StateStore store, Clock clock)
      throws ConfigException, IOException {
    // before anything is made (policies loaded, a development PKI, the audit log): a PDP that
    // cannot listen says so first, and leaves nothing behind
    Binding.checkFree(new InetSocketAddress(config.address(), config.port()), null);
    SharedStateChanges changes = new SharedStateChanges();
    IntObjectMap<ClientTypePolicy> policies =
        ClientTypePolicy.loadAll(config, store, changes::changed);
    PdpSecurityMaterial security =
        PdpSecurityMaterial.open(
            config, config.state() != null && config.state().zookeeper() ? store : null);
    AuditLog audit;
    try {
      audit =
          AuditLog.open(
              config.audit(), Duration.ZERO, security.registry.digester(Algorithm.SHA_256), clock);
    } catch (IOException | RuntimeException e) {
      security.close();
      throw e;
    }
    PdpServer s = new PdpServer(config, policies, audit, security, threads, store, clock);
    changes.target = s.policies::stateChanged;
    Path tunnelPolicy = config.security() == null ? null : config.security().tunnels();
    if (tunnelPolicy != null) {
      try {
        s.context.tunnels(
            TunnelDesk.open(
                tunnelPolicy,
                security.enroller == null ? null : security.enroller.store(),
                tunnelIssuer(security.enroller),
                () -> s.mlsEngine(),
                audit,
                clock,
                s.context.revoked()));
      } catch (ConfigException | RuntimeException e) {
        s.close();
        throw e;
      }
    }
    try {
      if (store != null && config.state().zookeeper()) {
        // before binding: no PEP is served before the fleet's revocations are applied here
        try {
          s.fleetRevocations =
              new FleetRevocations(store, s::memberId, s.fleetRevocationsHere(), s::soon);
        } catch (StoreException e) {
          throw new IOException("the fleet's revocations: " + e.getMessage(), e);
        }
      }
      s.bind();
      if (store != null && config.state().zookeeper()) {
        // after binding: nothing shared changes before the start holds
        s.fleet =
            FleetMember.join(
                store, s.context, config, s.audit, s.address(), s.housekeeping, s.closed::get);
        s.policies.fleet(s.fleet);
      }
      if (config.metrics() != null) {
        s.metrics =
            PdpMetrics.open(
                new PdpMetrics.Sources(
                    config, s.stats(), s.audit, s::notServing, s::cryptoRegistry, store));
        if (config.control() != null && !config.control().operators().isEmpty()) {
          s.metrics.route(new ControlApi(s.controls(), config.control().operators()));
          FleetMembers members = s.context.members();
          if (members != null) {
            members.publishControl(s.controlAddress()); // operators find every member's
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    s.ready.complete(null);
    return s;
  }

  /** The enrolment CA as the tunnel desk's authority (its key stays in the enroller), or null. */
  private static TunnelAuthority.Issuer tunnelIssuer(Enroller enroller) {
    if (enroller == null) {
      return null;
    }
    byte[] ca = enroller.caCertificate();
    return new TunnelAuthority.Issuer() {
      @Override
      public byte[] authority() {
        return ca.clone();
      }

      @Override
      public byte[] issue(
          byte[] publicKey,
          String owner,
          String tunnelId,
          String ikeId,
          java.time.Instant now,
          Duration valid)
          throws java.security.GeneralSecurityException {
        return enroller.issueTunnelCertificate(publicKey, owner, tunnelId, ikeId, now, valid);
      }
    };
  }

  private void bind() throws IOException {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(TRANSPORT.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .handler(new AcceptFailures("PDP", context.clock()))
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new PdpChannelInitializer(
                    context,
                    security.ring,
                    context.enrols() ? context::enrol : null,
                    context.tunnels()));
    try {
      serverChannel = Binding.bind(b, new InetSocketAddress(config.address(), config.port()), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding", e);
    }
    log.info("PDP listening on {} ({} transport)", address(), TRANSPORT);
    audit.record("started", "address", address().toString());
    started = true;
    audit.onFailure(
        e -> {
          // A PDP that cannot audit must not serve: stop, off the writer thread (close joins it).
          log.error("audit log cannot be written ({}): this PDP stops serving", e.getMessage());
          closeAsync();
        });
    long every = Math.max(1, config.statsInterval().toMillis());
    housekeeping.scheduleWithFixedDelay(
        () -> log.info("stats: {}", stats().summary()), every, every, TimeUnit.MILLISECONDS);
    housekeeping.scheduleWithFixedDelay(policies::watch, 2, 2, TimeUnit.SECONDS);
    housekeeping.scheduleWithFixedDelay(context::flushSummaries, 1, 1, TimeUnit.MINUTES);
    TunnelDesk desk = context.tunnels();
    if (desk != null) {
      housekeeping.scheduleWithFixedDelay(desk::expire, 1, 1, TimeUnit.SECONDS);
      housekeeping.scheduleWithFixedDelay(desk::watchPolicy, 2, 2, TimeUnit.SECONDS);
    }
  }

  // ---- an operator's revocations ----------------------------------------------------------------

  /**
   * Revokes {@code subject} on this PDP, now (docs/operate.md, "Revoking a subject"): from this
   * moment every decision for it is a Remove saying who revoked it and why, whatever the policy
   * says; every connection decides the subject's installed requests of every client type again and
   * pushes the Removes; its MLS sessions end; its tunnels are taken down at both ends. Audited with
   * {@code by}, the operator. On a fleet, the revocation is written to the fleet's store, and every
   * member applies it the same way (docs/operate.md, "On a fleet"). It lasts until {@link
   * #restoreSubject}. Returns at once, from any thread: the pushes go out on the connections' event
   * loops, the tunnels' Removes from the tunnel desk's thread, the store write from housekeeping.
   *
   * @return false if {@code subject} was revoked already (nothing is done again)
   */
  public boolean revokeSubject(String subject, String by, String reason) {
    RevokedSubjects.Revocation r =
        new RevokedSubjects.Revocation(subject, by, reason, context.clock().instant());
    if (!applyRevocation(r, null)) {
      return false;
    }
    FleetRevocations f = fleetRevocations;
    if (f != null) {
      soon(
          () -> {
            try {
              f.publish(r);
            } catch (StoreException e) {
              log.error(
                  "subject {} revoked on this PDP but not carried to the fleet: {}",
                  subject,
                  e.getMessage());
              audit.record("fleet-revocation-failed", "subject", subject, "detail", e.getMessage());
            }
          });
    }
    return true;
  }

  /**
   * Applies revocation {@code r} here, once: an operator's on this PDP ({@code via} null), or one
   * the fleet's store carried from member {@code via}.
   */
  private boolean applyRevocation(RevokedSubjects.Revocation r, String via) {
    String subject = r.subject();
    if (!context.revoked().revoke(r)) {
      return false;
    }
    if (via == null) {
      audit.record("subject-revoked", "subject", subject, "by", r.by(), "reason", r.reason());
      log.warn("subject {} revoked by {}: {}", subject, r.by(), r.reason());
    } else {
      audit.record(
          "subject-revoked", "subject", subject, "by", r.by(), "reason", r.reason(), "via", via);
      log.warn("subject {} revoked by {} at {}: {}", subject, r.by(), via, r.reason());
    }
    policies.revoked(subject);
    soon(() -> endSessions(subject)); // a fleet's are in its store: not on the caller's thread
    TunnelDesk desk = context.tunnels();
    if (desk != null) {
      desk.revokeSubjectSoon(subject, r.decision().data().reason());
    }
    return true;
  }

  /** What the fleet's revocations do here: apply them as this PDP's own. */
  private FleetRevocations.Listener fleetRevocationsHere() {
    return new FleetRevocations.Listener() {
      @Override
      public void revoked(RevokedSubjects.Revocation r, String member) {
        applyRevocation(r, member);
      }

      @Override
      public void restored(String subject, String by) {
        RevokedSubjects.Revocation was = context.revoked().restore(subject);
        if (was != null) {
          String who = by == null ? "(unknown)" : by;
          audit.record(
              "subject-restored",
              "subject",
              subject,
              "by",
              who,
              "revokedBy",
              was.by(),
              "via",
              "fleet");
          log.warn("subject {} restored by {} through the fleet", subject, who);
        }
      }
    };
  }

  /**
   * Where operators reach this PDP's control interface, as the fleet is told: the endpoint's
   * address, or this PDP's COPS address with the endpoint's port when the endpoint listens on every
   * address.
   */
  private InetSocketAddress controlAddress() {
    InetSocketAddress m = metricsAddress();
    return m.getAddress().isAnyLocalAddress()
        ? new InetSocketAddress(address().getAddress(), m.getPort())
        : m;
  }

  /** This PDP as the fleet's revocations name it: the address it serves COPS on. */
  private String memberId() {
    InetSocketAddress a = address();
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /** Runs {@code task} on the housekeeping thread; nothing once the PDP stopped. */
  private void soon(Runnable task) {
    try {
      housekeeping.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      log.debug("stopped: {} not run", task);
    }
  }

  /** Ends the MLS sessions of a subject just revoked (housekeeping). */
  private void endSessions(String subject) {
    for (ClientTypePolicy p : context.policies().values()) {
      if (p.engine() instanceof MlsEngine m) {
        int ended = m.endSessions(subject);
        if (ended > 0) {
          log.info("subject {} revoked: {} MLS sessions ended", subject, ended);
        }
      }
    }
  }

  /**
   * Ends {@code subject}'s revocation: its requests are decided by the policy again (a PEP asks
   * again; nothing is pushed). Audited with {@code by}; on a fleet, ended for every member.
   *
   * @return false if it was not revoked
   */
  public boolean restoreSubject(String subject, String by) {
    RevokedSubjects.Revocation was = context.revoked().restore(subject);
    FleetRevocations f = fleetRevocations;
    if (f != null) {
      soon(
          () -> {
            try {
              f.withdraw(subject, by);
            } catch (StoreException e) {
              log.error(
                  "subject {} restored on this PDP but still revoked in the fleet: {}",
                  subject,
                  e.getMessage());
              audit.record(
                  "fleet-restoration-failed", "subject", subject, "detail", e.getMessage());
            }
          });
    }
    if (was == null) {
      return false;
    }
    audit.record("subject-restored", "subject", subject, "by", by, "revokedBy", was.by());
    log.warn("subject {} restored by {} (revoked by {})", subject, by, was.by());
    return true;
  }

  /** What the operators' control interface reaches of this PDP. */
  private ControlApi.Pdp controls() {
    return new ControlApi.Pdp() {
      @Override
      public CompletableFuture<List<PepView>> peps(boolean decisions, String subject, int most) {
        List<CompletableFuture<PepView>> each =
            context.connections().stream()
                .map(c -> c.view(decisions, subject, most).exceptionally(gone -> null))
                .toList();
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
            .thenApply(
                v -> each.stream().map(CompletableFuture::join).filter(Objects::nonNull).toList());
      }

      @Override
      public CompletableFuture<List<TunnelBook.View>> tunnels() {
        TunnelDesk desk = context.tunnels();
        return desk == null ? CompletableFuture.completedFuture(List.of()) : desk.viewSoon();
      }

      @Override
      public List<MlsEngine.Session> sessions() {
        MlsEngine m = mlsEngine();
        return m == null ? List.of() : m.sessions();
      }

      @Override
      public List<ControlApi.Member> fleet() {
        FleetMembers m = context.members();
        if (m == null) {
          return List.of();
        }
        java.util.Map<String, InetSocketAddress> controls = m.controls();
        return m.members().entrySet().stream()
            .map(e -> new ControlApi.Member(e.getKey(), e.getValue(), controls.get(e.getKey())))
            .toList();
      }

      @Override
      public ControlApi.Status status() {
        PdpStats s = stats();
        Channel listening = serverChannel;
        return new ControlApi.Status(
            listening == null
                ? "-"
                : address().getAddress().getHostAddress() + ":" + address().getPort(),
            notServing(),
            s.connectedPeps(),
            s.decisions(),
            s.unsolicitedDecisions());
      }

      @Override
      public List<RevokedSubjects.Revocation> revoked() {
        return revokedSubjects();
      }

      @Override
      public boolean revoke(String subject, String by, String reason) {
        return revokeSubject(subject, by, reason);
      }

      @Override
      public boolean restore(String subject, String by) {
        return restoreSubject(subject, by);
      }

      @Override
      public int close(String pepId, String by) {
        return closePep(pepId, by);
      }

      @Override
      public CompletableFuture<Boolean> endTunnel(String id, String by, String reason) {
        TunnelDesk desk = context.tunnels();
        if (desk == null) {
          return CompletableFuture.completedFuture(false);
        }
        return desk.revokeSoon(id, "ended by " + by + ": " + reason);
      }

      @Override
      public CompletableFuture<List<String>> reload(String by) {
        return CompletableFuture.supplyAsync(
            () -> {
              try {
                return reloadPolicies(by);
              } catch (ConfigException e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            },
            housekeeping);
      }

      @Override
      public boolean drain(String by) {
        return drainSoon(by);
      }
    };
  }

  /**
   * Closes every connection of PEP {@code pepId} (an operator's action): a Client-Close
   * "Unspecified" for each open client type, then the close. The PEP may connect again; to keep a
   * subject out, revoke it. Audited with {@code by}.
   *
   * @return how many connections it had
   */
  public int closePep(String pepId, String by) {
    int n = 0;
    for (PepConnection c : context.connections()) {
      if (pepId.equals(c.pepId())) {
        try {
          c.execute(() -> c.closeAll(ErrorCode.UNSPECIFIED));
          n++;
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
          // its event loop is stopping: the connection is going anyway
        }
      }
    }
    if (n > 0) {
      audit.record("pep-closed", "pep", pepId, "by", by, "connections", n);
      log.warn("PEP {} closed by {} ({} connections)", pepId, by, n);
    }
    return n;
  }

  /**
   * Reads every policy again now (an operator's action, audited with {@code by}): each client
   * type's and the tunnel policy; a file refused leaves its running policy in force.
   *
   * @return each policy in force afterwards, described
   * @throws ConfigException the first file refused, naming it and the line
   */
  public List<String> reloadPolicies(String by) throws ConfigException {
    audit.record("reload-asked", "by", by);
    log.info("policies reloaded at the request of {}", by);
    ConfigException failed = null;
    try {
      reloadAll();
    } catch (ConfigException e) {
      failed = e;
    }
    try {
      tunnels().reload();
    } catch (ConfigException e) {
      failed = failed == null ? e : failed;
    }
    if (failed != null) {
      throw failed;
    }
    List<String> inForce = new java.util.ArrayList<>();
    for (ClientTypePolicy p : context.policies().values()) {
      inForce.add(dev.portcullis.cops.ClientTypes.hex(p.clientType) + ": " + p.engine().describe());
    }
    return inForce;
  }

  /**
   * Starts draining this PDP as SIGTERM would ({@link #drain}), on a thread of its own, without
   * stopping it: it reports not ready, takes no new connection, and a fleet member sends its PEPs
   * to the others. Audited with {@code by}.
   *
   * @return false if it was draining already
   */
  public boolean drainSoon(String by) {
    if (draining || closed.get()) {
      return false;
    }
    audit.record("drain-asked", "by", by);
    log.warn("draining at the request of {}", by);
    draining = true;
    Threads.start("portcullis-pdp-drain", () -> drain(config.drainTime()));
    return true;
  }

  /** The subjects revoked on this PDP now. */
  public List<RevokedSubjects.Revocation> revokedSubjects() {
    return context.revoked().all();
  }

  // ---- tunnels ----------------------------------------------------------------------------------

  /** The tunnels this PDP grants (client type 0xC0A8; none without a tunnel policy). */
  public PdpTunnels tunnels() {
    return new PdpTunnels(context.tunnels());
  }

  /** The engine of the first client type decided by multilevel security, or null. */
  private MlsEngine mlsEngine() {
    for (ClientTypePolicy p : context.policies().values()) {
      if (p.engine() instanceof MlsEngine m) {
        return m;
      }
    }
    return null;
  }

  /** The fleet's store, or null (tests inject faults through it). */
  StateStore stateStore() {
    return store;
  }

  /** The address the server listens on (the real port when 0 was configured). */
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  public PdpConfig config() {
    return config;
  }

  public PdpStats stats() {
    return context.stats();
  }

  /**
   * Starts keeping every session's PDP-side timings (for the simulator's report); they are kept in
   * memory until the server stops, so only for measured runs.
   */
  public PdpTimings enableTimings() {
    PdpTimings t = context.timings();
    if (t == null) {
      t = new PdpTimings();
      context.timings(t);
    }
    return t;
  }

  /** Stops keeping timings (the samples kept so far stay readable through the old object). */
  public void disableTimings() {
    context.timings(null);
  }

  /**
   * Reads the crypto table ({@code <crypto config=...>}) again and switches to it, as SIGHUP does;
   * a refused file leaves the running table in force. Without a table, nothing to do.
   *
   * @throws ConfigException if the file is refused (logged too)
   */
  public void reloadCrypto() throws ConfigException {
    if (config.crypto() != null) {
      security.registry.reload();
    }
  }

  /** The crypto registry serving this PDP (its table can switch at run time). */
  CryptoRegistry cryptoRegistry() {
    return security.registry;
  }

  /** The metrics endpoint's address, or null without {@code <metrics>}. */
  public InetSocketAddress metricsAddress() {
    MetricsEndpoint m = metrics;
    return m == null ? null : m.address();
  }

  /** Its audit log ({@link AuditLog#NONE} without {@code <audit>}). */
  AuditLog audit() {
    return audit;
  }

  /** Completes when {@link #start} returns: bound, policies loaded, fleet joined. */
  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  @Override
  public boolean isReady() {
    return ready.isDone() && notServing() == null;
  }

  @Override
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  /** The fleet members this PDP knows of now, by id; none outside a fleet. */
  java.util.Set<String> fleetMembers() {
    FleetMembers m = context.members();
    return m == null ? java.util.Set.of() : java.util.Set.copyOf(m.members().keySet());
  }

  /** Null while this PDP serves; else why not (stopping, draining, not bound). */
  String notServing() {
    return closed.get()
        ? "stopping"
        : draining
            ? "draining"
            : serverChannel == null || !serverChannel.isActive() ? "not bound" : null;
  }

  /**
   * Which provider serves each algorithm now, why the others were passed over, and how many
   * operations each provider has served: the operator's read-out ({@link RegistryStatus#format}).
   */
  public RegistryStatus cryptoStatus() {
    return security.registry.status();
  }

  /** The engine serving a client type, or null. */
  public PolicyEngine engine(int clientType) {
    return context.engine(clientType);
  }

  // ---- policy reload (PdpPolicies) -------------------------------------------------------------

  /**
   * Reloads one client type's policy file and pushes changed decisions to exactly the PEPs whose
   * installed decisions changed.
   *
   * @throws ConfigException if the file is invalid; the running policy stays in force
   * @throws IllegalArgumentException if the client type is not served
   */
  public void reload(int clientType) throws ConfigException {
    policies.reload(clientType);
  }

  /** Reloads every client type's policy; the first failure is thrown after trying all. */
  public void reloadAll() throws ConfigException {
    policies.reloadAll();
  }

  /** Asks every PEP with {@code clientType} open to resynchronize its state (SSQ). */
  public void synchronize(int clientType) {
    policies.synchronize(clientType);
  }

  /** The PEP ids connected now. */
  public List<String> connectedPeps() {
    return context.connections().stream()
        .map(PepConnection::pepId)
        .filter(Objects::nonNull)
        .sorted()
        .toList();
  }

  // ---- shutdown ---------------------------------------------------------------------------------

  /**
   * Drains this PDP before {@link #close} (SIGTERM), for at most {@code period}: from now on it
   * reports not ready and accepts no connection. A fleet member sends every PEP to the least-loaded
   * other member and waits for the connections to go (docs/fleet.md); a PDP alone, or one without
   * another member, waits for the decisions its asynchronous engines are still making to be sent.
   * {@link #close} then says "shutting down" to whoever is left.
   *
   * @return the connections still open when it stopped waiting
   */
  public int drain(Duration period) {
    draining = true; // not ready from now on: a balancer or an operator sees it go
    if (closed.get()) {
      return context.connections().size();
    }
    long end = System.nanoTime() + period.toNanos();
    if (fleet != null && fleet.drain(period) == 0) {
      return 0;
    }
    Channel listening = serverChannel;
    if (listening != null) {
      listening.close().syncUninterruptibly();
    }
    int left = context.awaitDecisions(end);
    if (left > 0) {
      log.warn(
          "draining: {} decisions still being made after {}; their PEPs are closed", left, period);
    }
    return context.connections().size();
  }

  /**
   * Stops accepting, sends every PEP a Client-Close "shutting down" for each open client type,
   * waits for the connections to close (at most 5 seconds), and stops.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    MetricsEndpoint m = metrics;
    if (m != null) {
      m.close();
    }
    context.close();
    if (serverChannel != null && !serverChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS)) {
      // bounded: on io_uring (Netty 4.2.18, Linux 6.18, when it was tried) a listening socket's
      // close once never completed; a stop must not wait for ever on its transport
      log.warn("the listening socket did not close within 2 s; stopping anyway");
    }
    context.closeConnections(ErrorCode.SHUTTING_DOWN, Duration.ofSeconds(5));
    housekeeping.shutdownNow();
    workers.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    log.info("PDP stopped; {}", stats().summary());
    if (started) {
      audit.record("stopped");
      audit.close();
    } else {
      audit.abandon(); // a start that failed leaves no log it made (docs/security.md)
    }
    context.release();
    FleetRevocations revocations = fleetRevocations;
    if (revocations != null) {
      revocations.close();
    }
    if (fleet != null) {
      fleet.close(); // anchors the audit head at stop, after the "stopped" record
    }
    if (store != null) {
      store.close(); // this PDP's leased fleet entries (its sessions) end now
    }
    stopped.complete(null);
  }
}
