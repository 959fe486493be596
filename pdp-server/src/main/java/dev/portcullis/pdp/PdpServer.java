package dev.portcullis.pdp;

import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.CopsObject;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.integrity.SigningCopsEncoder;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.LogSummary;
import dev.portcullis.support.Transport;
import dev.portcullis.support.pki.DevCertificates;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The COPS Policy Decision Point: a Netty server with one {@link PdpConnection} state machine per
 * PEP connection, the configured policy engine per client type, policy reloads that push changed
 * decisions, audit and counters, and a graceful shutdown that sends every PEP a Client-Close
 * "shutting down".
 *
 * <p>Decisions are computed on the connection's event loop: the engines are fast, and handing a
 * request to another thread costs more than deciding it.
 */
public final class PdpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PdpServer.class);

  private final PdpConfig config;
  private final Map<Integer, ClientTypePolicy> policies;
  private final Set<PdpConnection> connections = ConcurrentHashMap.newKeySet();
  private final PdpStats stats = new PdpStats();
  private final AuditLog audit;
  private final CopsTls tls;
  private final KeyRing keyRing;
  private final CryptoRegistry integrityRegistry;
  private final Enroller enroller;
  private final ExecutorService enrolments;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ScheduledExecutorService housekeeping;
  private static final Transport TRANSPORT = Transport.best();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean started; // bound and recorded so: only then is a stop recorded

  /** Refusals an outsider can cause at will: the first of a kind logged, the rest counted. */
  private final LogSummary refusals =
      new LogSummary(log, "refused connections", Duration.ofMinutes(1), Clock.systemUTC());

  private volatile PdpTimings timings;
  private Channel serverChannel;

  private PdpServer(
      PdpConfig config,
      Map<Integer, ClientTypePolicy> policies,
      AuditLog audit,
      Security security,
      int threads) {
    this.config = config;
    this.policies = policies;
    this.audit = audit;
    this.tls = security.tls;
    this.keyRing = security.ring;
    this.integrityRegistry = security.registry;
    this.enroller = security.enroller;
    this.enrolments =
        enroller == null
            ? null
            : Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "portcullis-pdp-enrolment");
                  t.setDaemon(true);
                  return t;
                });
    this.boss = TRANSPORT.group(1);
    this.workers = TRANSPORT.group(threads);
    this.housekeeping =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "portcullis-pdp-housekeeping");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Loads the policies of every configured client type and starts listening.
   *
   * @param threads event-loop threads for connections (0: Netty's default, twice the cores)
   * @throws ConfigException if a policy file or engine name is wrong
   * @throws IOException if the port cannot be bound or the audit file opened
   */
  public static PdpServer start(PdpConfig config, int threads) throws ConfigException, IOException {
    Map<String, PolicyEngineProvider> providers = new HashMap<>();
    for (PolicyEngineProvider p :
        ServiceLoader.load(PolicyEngineProvider.class, PdpServer.class.getClassLoader())) {
      providers.putIfAbsent(p.name(), p);
    }
    Map<Integer, ClientTypePolicy> policies = new HashMap<>();
    for (PdpConfig.ClientTypeConfig c : config.clientTypes().values()) {
      PolicyEngineProvider p = providers.get(c.engine());
      if (p == null) {
        throw new ConfigException(
            config.source(),
            "client type "
                + PdpConnection.hex(c.code())
                + ": engine "
                + c.engine()
                + " (expected: one of "
                + providers.keySet()
                + ")",
            null);
      }
      ClientTypePolicy policy = new ClientTypePolicy(c.code(), p, c.policy(), c.watch());
      log.info(
          "client type {}: {} engine, {}",
          PdpConnection.hex(c.code()),
          c.engine(),
          policy.engine().describe());
      policies.put(c.code(), policy);
    }
    Security security = Security.open(config);
    AuditLog audit;
    try {
      audit = AuditLog.open(config.audit());
    } catch (IOException | RuntimeException e) {
      security.close();
      throw e;
    }
    PdpServer s = new PdpServer(config, policies, audit, security, threads);
    try {
      s.bind();
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void bind() throws IOException {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(TRANSPORT.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    IntegritySession integrity =
                        keyRing == null
                            ? null
                            : new IntegritySession(keyRing, Clock.systemUTC(), false);
                    ch.pipeline()
                        .addLast("decoder", new CopsDecoder(config.maxMessageSize(), integrity))
                        .addLast(
                            "encoder",
                            integrity == null
                                ? CopsEncoder.INSTANCE
                                : new SigningCopsEncoder(integrity))
                        .addLast("pdp", new PdpConnection(PdpServer.this, integrity));
                  }
                });
    try {
      serverChannel =
          b.bind(new InetSocketAddress(config.address(), config.port())).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding", e);
    } catch (Exception e) {
      throw new IOException(
          "cannot listen on "
              + config.address().getHostAddress()
              + ":"
              + config.port()
              + ": "
              + e.getMessage(),
          e);
    }
    log.info("PDP listening on {} ({} transport)", address(), TRANSPORT);
    audit.record("started", "address", address().toString());
    started = true;
    audit.onFailure(
        e -> {
          // A PDP that cannot audit must not serve: stop, off the writer thread (close joins it).
          log.error("audit log cannot be written ({}): this PDP stops serving", e.getMessage());
          Thread t = new Thread(this::close, "portcullis-pdp-stop");
          t.setDaemon(false);
          t.start();
        });
    long every = Math.max(1, config.statsInterval().toMillis());
    housekeeping.scheduleWithFixedDelay(
        () -> log.info("stats: {}", stats.summary()), every, every, TimeUnit.MILLISECONDS);
    housekeeping.scheduleWithFixedDelay(this::watchPolicies, 2, 2, TimeUnit.SECONDS);
    housekeeping.scheduleWithFixedDelay(refusals::flush, 1, 1, TimeUnit.MINUTES);
  }

  /** The address the server listens on (the real port when 0 was configured). */
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  public PdpConfig config() {
    return config;
  }

  /** The PDP's TLS, or null when it does not speak TLS. */
  CopsTls tls() {
    return tls;
  }

  /** The PDP's security settings, or null for plain COPS. */
  PdpSecurity security() {
    return config.security();
  }

  /** Where connection refusals are logged, summarised. */
  LogSummary refusals() {
    return refusals;
  }

  /** True if this PDP enrols PEPs with one-time credentials. */
  boolean enrols() {
    return enroller != null;
  }

  /**
   * Runs an enrolment attempt off the event loops (it waits for the disk); one at a time, so the
   * store sees them in order.
   */
  CompletableFuture<Enroller.Outcome> enrol(String pepId, Enrolment.Request r) {
    return CompletableFuture.supplyAsync(() -> enroller.enrol(pepId, r, Instant.now()), enrolments);
  }

  /** The TLS and Integrity material a PDP runs with, made once at start. */
  private static final class Security {
    final CopsTls tls;
    final KeyRing ring;
    final CryptoRegistry registry;
    Enroller enroller;

    private Security(CopsTls tls, KeyRing ring, CryptoRegistry registry) {
      this.tls = tls;
      this.ring = ring;
      this.registry = registry;
    }

    static Security open(PdpConfig config) throws ConfigException, IOException {
      PdpSecurity s = config.security();
      if (s == null) {
        return new Security(null, null, null);
      }
      CryptoRegistry registry = null;
      KeyRing ring = null;
      if (!s.keys().isEmpty()) {
        registry = IntegrityKeys.registry(s.keys());
        try {
          ring = IntegrityKeys.ring(s.keys(), registry);
        } catch (ConfigException | RuntimeException e) {
          registry.close();
          throw e;
        }
        log.info("Integrity: {}", ring.keys());
      }
      CopsTls tls = null;
      if (s.tls() != null) {
        try {
          tls = serverTls(config, s);
        } catch (IOException | RuntimeException e) {
          if (registry != null) {
            registry.close();
          }
          throw e;
        }
      }
      Security sec = new Security(tls, ring, registry);
      if (s.enrolment() != null) {
        try {
          sec.enroller = enroller(s);
        } catch (IOException | RuntimeException e) {
          sec.close();
          throw e;
        }
      }
      return sec;
    }

    private static Enroller enroller(PdpSecurity s) throws IOException {
      PdpSecurity.Enrolment e = s.enrolment();
      Path caCrt = e.caCertificate();
      Path caKey = e.caKey();
      if (caCrt == null) {
        DevCertificates.Pki pki = DevCertificates.ensure(s.tls().devPki(), List.of(), List.of());
        caCrt = pki.caCertificate();
        caKey = pki.directory().resolve("ca.key");
      }
      try {
        Enroller enroller =
            new Enroller(
                CredentialStore.open(e.store()),
                DevCertificates.certificateFile(caCrt),
                DevCertificates.privateKeyFile(caKey),
                e.lifetime());
        log.info(
            "enrolment: one-time credentials in {}, certificates signed by {} for {}",
            enroller.store().directory(),
            caCrt,
            e.lifetime());
        return enroller;
      } catch (GeneralSecurityException x) {
        throw new IOException("enrolment CA " + caCrt + ": " + x.getMessage(), x);
      }
    }

    private static CopsTls serverTls(PdpConfig config, PdpSecurity s) throws IOException {
      TlsSettings t = s.tls();
      Path chain = t.certificate();
      Path key = t.key();
      Path trust = t.trust();
      if (t.development()) {
        List<String> names = new ArrayList<>();
        if (!config.address().isLoopbackAddress() && !config.address().isAnyLocalAddress()) {
          names.add(config.address().getHostAddress());
        }
        DevCertificates.Pki pki = DevCertificates.ensure(t.devPki(), names, List.of());
        log.warn(
            "TLS: no certificate configured; using development certificates from {} (not for"
                + " production)",
            pki.directory());
        chain = pki.pdp().certificateChain();
        key = pki.pdp().privateKey();
        trust = pki.caCertificate();
      }
      CopsTls tls =
          CopsTls.server(
              t,
              chain,
              key,
              trust,
              s.clientAuth(),
              s.sessionTimeout().getSeconds(),
              s.sessionCacheSize());
      log.info(
          "TLS: {} engine, {}, client certificates {}, sessions resumable for {}, PEPs {} TLS",
          t.engine().configName(),
          t.protocols(),
          s.clientAuth().name().toLowerCase(Locale.ROOT),
          s.sessionTimeout(),
          s.initiate() ? "offered (RFC 4261 5.2) when they need" : "refused without");
      return tls;
    }

    void close() {
      if (tls != null) {
        tls.close();
      }
      if (registry != null) {
        registry.close();
      }
    }
  }

  public PdpStats stats() {
    return stats;
  }

  /**
   * Starts keeping every session's PDP-side timings (for the simulator's report); they are kept in
   * memory until the server stops, so only for measured runs.
   */
  public PdpTimings enableTimings() {
    PdpTimings t = timings;
    if (t == null) {
      t = new PdpTimings();
      timings = t;
    }
    return t;
  }

  /** Stops keeping timings (the samples kept so far stay readable through the old object). */
  public void disableTimings() {
    timings = null;
  }

  PdpTimings timings() {
    return timings;
  }

  AuditLog audit() {
    return audit;
  }

  ClientTypePolicy policy(int clientType) {
    return policies.get(clientType);
  }

  /** The engine serving a client type, or null. */
  public PolicyEngine engine(int clientType) {
    ClientTypePolicy p = policies.get(clientType);
    return p == null ? null : p.engine();
  }

  /** True if a Last PDP Address names this server (same port, and a local or listening address). */
  boolean isSelf(CopsObject.PdpAddress a) {
    InetSocketAddress me = address();
    if (a.port() != me.getPort()) {
      return false;
    }
    return a.address().equals(me.getAddress())
        || me.getAddress().isAnyLocalAddress()
        || a.address().isLoopbackAddress() && me.getAddress().isLoopbackAddress();
  }

  PdpConfig.Redirect redirectFor(String pepId, int type) {
    for (PdpConfig.Redirect r : config.redirects()) {
      if (r.applies(pepId, type)) {
        return r;
      }
    }
    return null;
  }

  boolean register(PdpConnection c) {
    if (closed.get() || connections.size() >= config.maxConnections()) {
      return false;
    }
    connections.add(c);
    stats.connected();
    return true;
  }

  void unregister(PdpConnection c) {
    if (connections.remove(c)) {
      stats.disconnected();
    }
  }

  // ---- policy reload ----------------------------------------------------------------------------

  /**
   * Reloads one client type's policy file and pushes changed decisions to exactly the PEPs whose
   * installed decisions changed.
   *
   * @throws ConfigException if the file is invalid; the running policy stays in force
   * @throws IllegalArgumentException if the client type is not served
   */
  public void reload(int clientType) throws ConfigException {
    ClientTypePolicy p = policies.get(clientType);
    if (p == null) {
      throw new IllegalArgumentException(
          "client type " + PdpConnection.hex(clientType) + " is not served");
    }
    PolicyEngine next;
    try {
      next = p.reload();
    } catch (ConfigException e) {
      log.warn(
          "policy for client type {} rejected, the previous one stays in force: {}",
          PdpConnection.hex(clientType),
          e.getMessage());
      audit.record("policy-rejected", "clientType", clientType, "detail", e.getMessage());
      throw e;
    }
    log.info(
        "policy for client type {} reloaded: {}", PdpConnection.hex(clientType), next.describe());
    audit.record("policy-reloaded", "clientType", clientType, "policy", next.describe());
    for (PdpConnection c : connections) {
      c.execute(() -> c.reevaluate(clientType, next));
    }
  }

  /** Reloads every client type's policy; the first failure is thrown after trying all. */
  public void reloadAll() throws ConfigException {
    ConfigException first = null;
    for (int type : policies.keySet()) {
      try {
        reload(type);
      } catch (ConfigException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void watchPolicies() {
    for (ClientTypePolicy p : policies.values()) {
      if (p.watch && p.changed()) {
        try {
          reload(p.clientType);
        } catch (ConfigException | RuntimeException e) {
          // logged by reload
        }
      }
    }
  }

  /** Asks every PEP with {@code clientType} open to resynchronize its state (SSQ). */
  public void synchronize(int clientType) {
    for (PdpConnection c : connections) {
      c.execute(() -> c.synchronize(clientType));
    }
  }

  /** The PEP ids connected now. */
  public List<String> connectedPeps() {
    return connections.stream()
        .map(PdpConnection::pepId)
        .filter(Objects::nonNull)
        .sorted()
        .toList();
  }

  // ---- shutdown ---------------------------------------------------------------------------------

  /**
   * Stops accepting, sends every PEP a Client-Close "shutting down" for each open client type,
   * waits for the connections to close (at most 5 seconds), and stops.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
    CountDownLatch done = new CountDownLatch(connections.size());
    for (PdpConnection c : connections) {
      c.execute(
          () -> {
            c.closeAll(ErrorCode.SHUTTING_DOWN);
            done.countDown();
          });
    }
    try {
      done.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    housekeeping.shutdownNow();
    workers.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).syncUninterruptibly();
    log.info("PDP stopped; {}", stats.summary());
    if (started) {
      audit.record("stopped");
    }
    audit.close();
    new Security(tls, keyRing, integrityRegistry).close();
    if (enrolments != null) {
      enrolments.shutdown();
    }
  }
}
