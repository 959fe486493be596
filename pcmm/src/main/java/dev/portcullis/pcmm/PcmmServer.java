package dev.portcullis.pcmm;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.pcmm.Deviation;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Binding;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Lifecycle;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy server as {@code pcmm.xml} describes it: the CMTS connections, the policy (engine,
 * limits, or both), the audit, and the HTTP endpoint with {@code /gates} for application managers,
 * {@code /metrics}, {@code /health} and {@code /ready}. What {@code pcmm-server} runs.
 */
public final class PcmmServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(PcmmServer.class);

  private final Path file;
  private final EngineGatePolicy engine;
  private final SubscriberLimits limits;
  private final AuditLog audit;
  private final PolicyServer server;
  private final MetricsEndpoint http;
  private final Fleet fleet;

  /** A fleet member's store and its part in the fleet; null for a lone server. */
  private record Fleet(StateStore store, FleetGates gates) {}

  private PcmmServer(
      Path file,
      EngineGatePolicy engine,
      SubscriberLimits limits,
      AuditLog audit,
      PolicyServer server,
      MetricsEndpoint http,
      Fleet fleet) {
    this.file = file;
    this.engine = engine;
    this.limits = limits;
    this.audit = audit;
    this.server = server;
    this.http = http;
    this.fleet = fleet;
  }

  /**
   * Starts the policy server {@code file} configures: loads the policy, opens the audit, connects
   * to every CMTS (without waiting for them: {@link PolicyServer#ready()}), and opens the endpoint.
   *
   * @throws ConfigException a configuration or policy mistake, with its file and line
   * @throws IOException the audit log or the endpoint's address cannot be taken
   */
  public static PcmmServer start(Path file) throws ConfigException, IOException, StoreException {
    return start(file, Clock.systemUTC());
  }

  /**
   * As {@link #start(Path)}, with the wall clock everything it builds reads (log summaries, the
   * fleet's intent names): the one place this server takes the system clock.
   */
  public static PcmmServer start(Path file, Clock clock)
      throws ConfigException, IOException, StoreException {
    PcmmConfig c = PcmmConfig.load(file);
    EngineGatePolicy engine =
        c.policy() == null ? null : EngineGatePolicy.load(c.policy().engine(), c.policy().file());
    SubscriberLimits limits =
        c.limits() == null
            ? null
            : new SubscriberLimits(c.limits().gatesPerSubscriber(), c.limits().serviceClasses());
    List<GatePolicy> parts = new ArrayList<>();
    if (engine != null) {
      parts.add(engine);
    }
    if (limits != null) {
      parts.add(limits);
    }
    GatePolicy policy = parts.size() == 1 ? parts.get(0) : GatePolicy.all(engine, limits);
    if (c.http() != null) {
      // before anything is made: a port in use is one line, and no audit log is left behind
      // (issue 47; the PDP does the same)
      Binding.checkFree(c.http(), "the gate API and metrics (<http listen>)");
    }
    AuditLog audit = AuditLog.open(c.audit(), clock);
    MetricsEndpoint http = null;
    PolicyServer server = null;
    Fleet fleet = null;
    try {
      if (c.http() != null) {
        http = MetricsEndpoint.start(c.http(), "pcmm", tls(c.httpTls()));
      }
      if (c.fleet() != null) {
        StateStore store = c.state().open();
        fleet =
            new Fleet(
                store,
                new FleetGates(
                    store,
                    c.fleet().member(),
                    http == null ? null : HostPort.of(http.address()),
                    c.cmtss().keySet(),
                    c.fleet().claimDelay(),
                    clock));
        server = PolicyServer.member(c.cmtss(), policy, c.settings(), fleet.gates(), clock);
      } else {
        server = PolicyServer.start(c.cmtss(), policy, c.settings(), clock);
      }
      server.addListener(new GateAudit(audit));
      PcmmServer s = new PcmmServer(file, engine, limits, audit, server, http, fleet);
      if (http != null) {
        s.instrument(http.registry());
        http.route(
            new GateApi(
                server,
                c.applicationManagers(),
                fleet == null ? cmts -> Optional.empty() : fleet.gates()::ownerEndpoint,
                clock));
      }
      if (fleet != null) {
        server.addListener(fleet.gates());
        fleet.gates().join(server);
      }
      audit.onFailure(
          e -> {
            // a policy server that cannot record gates must not make them
            log.error("audit log cannot be written ({}): stopping", e.getMessage());
            s.close();
          });
      log.info(
          "policy server: {} CMTSs {}, gates decided by {}{}",
          c.cmtss().size(),
          c.cmtss().keySet(),
          c.policy() != null
              ? "the " + c.policy().engine() + " engine (" + c.policy().file() + ")"
              : "",
          limits != null ? (engine != null ? " and " : "") + "per-subscriber limits" : "");
      return s;
    } catch (RuntimeException | IOException | StoreException e) {
      if (server != null) {
        server.close();
      }
      if (fleet != null) {
        fleet.gates().close();
        fleet.store().close();
      }
      if (http != null) {
        http.close();
      }
      audit.close();
      throw e;
    }
  }

  /** The endpoint's HTTPS, or null for plain HTTP. */
  private static SslContext tls(PcmmConfig.HttpTls t) throws IOException {
    // client certificates asked for, not required: probes and scrapes come without one; /gates
    // checks the application manager's binding
    return t == null
        ? null
        : MetricsEndpoint.https(t.certificate(), t.key(), t.clientCa(), "<http><tls>");
  }

  private void instrument(MeterRegistry r) {
    Gauge.builder("portcullis.pcmm.gates", server, s -> s.gates().size())
        .description("Gates held on all CMTSs")
        .register(r);
    for (String cmts : server.cmtss()) {
      Gauge.builder("portcullis.pcmm.cmts.connected", server, s -> s.isReady(cmts) ? 1 : 0)
          .description("1 while the CMTS is connected and has sent its REQ")
          .tag("cmts", cmts)
          .register(r);
    }
    for (String cmts : server.cmtss()) {
      PeerStats peer = server.peer(cmts);
      Gauge.builder("portcullis.pcmm.cmts.version.major", peer, PeerStats::major)
          .description(
              "PCMM major version of the CMTS's last Client-Open (-1 before one); 1 is I02's,"
                  + " implemented here")
          .tag("cmts", cmts)
          .register(r);
      Gauge.builder("portcullis.pcmm.cmts.version.minor", peer, PeerStats::minor)
          .description("PCMM minor version of the CMTS's last Client-Open (-1 before one)")
          .tag("cmts", cmts)
          .register(r);
      for (String kind : Deviation.KINDS) {
        FunctionCounter.builder("portcullis.pcmm.cmts.deviations", peer, p -> p.deviations(kind))
            .description(
                "What the CMTS wrote against the specification and was read anyway, by kind")
            .tags("cmts", cmts, "kind", kind)
            .register(r);
      }
      FunctionCounter.builder(
              "portcullis.pcmm.cmts.answers.unreadable", peer, PeerStats::unreadableAnswers)
          .description("Answers from the CMTS that could not be read")
          .tag("cmts", cmts)
          .register(r);
      FunctionCounter.builder(
              "portcullis.pcmm.cmts.commands.unanswered", peer, PeerStats::unansweredCommands)
          .description("Gate commands the CMTS did not answer within the answer timeout")
          .tag("cmts", cmts)
          .register(r);
    }
    String sets = "Gate-Sets by outcome: set, or refused (by the policy or the CMTS, or no answer)";
    String ended = "Gates ended: deleted (Gate-Delete acknowledged), or lost (gone from the CMTS)";
    Counter set = counter(r, "portcullis.pcmm.gate.sets", sets, "result", "set");
    Counter refused = counter(r, "portcullis.pcmm.gate.sets", sets, "result", "refused");
    Counter deleted = counter(r, "portcullis.pcmm.gates.ended", ended, "how", "deleted");
    Counter lost = counter(r, "portcullis.pcmm.gates.ended", ended, "how", "lost");
    server.addListener(
        new GateListener() {
          @Override
          public void set(Gate gate, String reason) {
            set.increment();
          }

          @Override
          public void refused(String cmts, GateRequest request, String reason) {
            refused.increment();
          }

          @Override
          public void deleted(Gate gate, String reason) {
            deleted.increment();
          }

          @Override
          public void lost(Gate gate, String reason) {
            lost.increment();
          }
        });
    http.readiness(
        "cmts",
        () -> {
          List<String> down =
              server.cmtss().stream()
                  .filter(c -> held().contains(c) && !server.isReady(c))
                  .toList();
          return down.isEmpty() ? null : "not connected: " + String.join(", ", down);
        });
    http.readiness(
        "audit",
        () ->
            audit.failure() == null
                ? null
                : "audit log cannot be written: " + audit.failure().getMessage());
  }

  private static Counter counter(
      MeterRegistry r, String name, String description, String tag, String value) {
    return Counter.builder(name).description(description).tag(tag, value).register(r);
  }

  /** The policy server, for applications in the same process. */
  public PolicyServer server() {
    return server;
  }

  /** The endpoint, or null when the configuration has no {@code <http>}. */
  public MetricsEndpoint http() {
    return http;
  }

  /**
   * Reads the policy file and the limits again (SIGHUP) and deletes at once the gates they no
   * longer allow. A file with a mistake changes nothing: the policy in use stays.
   *
   * @return how many gates were deleted, when every CMTS has answered
   * @throws ConfigException the mistake, with its file and line
   */
  public CompletableFuture<Integer> reload() throws ConfigException {
    PcmmConfig c = PcmmConfig.load(file);
    if ((c.limits() == null) != (limits == null) || (c.policy() == null) != (engine == null)) {
      throw new ConfigException(
          file.toString(),
          "adding or removing <policy> or <limits> needs a restart (the policy in use stays)",
          null);
    }
    if (engine != null) {
      engine.reload();
    }
    if (limits != null) {
      limits.limits(c.limits().gatesPerSubscriber(), c.limits().serviceClasses());
    }
    return server
        .reevaluate()
        .whenComplete(
            (n, e) -> {
              if (e == null) {
                log.info("policy reloaded: {} gates no longer allowed, deleted", n);
              } else {
                log.warn(
                    "policy reloaded; deleting the gates it no longer allows: {}", e.toString());
              }
            });
  }

  /** A lone server: every CMTS has opened. A fleet member: it has joined the fleet. */
  @Override
  public CompletableFuture<Void> ready() {
    return fleet == null ? server.ready() : fleet.gates().joined();
  }

  @Override
  public boolean isReady() {
    return fleet == null
        ? server.isReady()
        : fleet.gates().joined().isDone() && fleet.store().connection().up();
  }

  /** The CMTSs this server holds: all of them, or a fleet member's share. */
  public Set<String> held() {
    return fleet == null ? Set.copyOf(server.cmtss()) : fleet.gates().held();
  }

  @Override
  public CompletableFuture<Void> stopped() {
    return server.stopped();
  }

  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    if (fleet != null) {
      fleet.gates().close();
    }
    server.close();
    if (fleet != null) {
      fleet.store().close(); // this member's leases end: its CMTSs are taken over
    }
    audit.close();
    try {
      server.stopped().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closed as far as it goes
    }
  }
}
