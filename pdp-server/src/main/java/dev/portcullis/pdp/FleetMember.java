package dev.portcullis.pdp;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.fleet.FleetAudit;
import dev.portcullis.pdp.fleet.FleetMembers;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PDP's part in a fleet on ZooKeeper (docs/fleet.md): its membership and load, the policy
 * versions it follows and publishes, its audit anchors, what it does when its store session is
 * lost, and draining. Made once the PDP is bound: nothing shared changes before the start holds.
 */
final class FleetMember implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetMember.class);

  private final StateStore store;
  private final ServerContext context;
  private final PdpConfig config;
  private final AuditLog audit;
  private final String member;
  private final BooleanSupplier stopped;
  private final Path policyScratch; // where published policies are written to be loaded
  private FleetPolicies policies;

  private FleetMember(
      StateStore store,
      ServerContext context,
      PdpConfig config,
      AuditLog audit,
      InetSocketAddress address,
      BooleanSupplier stopped)
      throws IOException {
    this.store = store;
    this.context = context;
    this.config = config;
    this.audit = audit;
    this.member = address.getAddress().getHostAddress() + ":" + address.getPort();
    this.stopped = stopped;
    this.policyScratch = Files.createTempDirectory("portcullis-pdp-policies"); // owner-only
  }

  /** The store {@code <state>} names, opened (the PDP alone: null). */
  static StateStore openStore(PdpConfig config) throws IOException {
    if (config.state() == null) {
      return null;
    }
    try {
      StateStore store = config.state().open();
      log.info("state store: {}", store.describe());
      return store;
    } catch (StoreException e) {
      throw new IOException("state store (" + config.source() + " <state>): " + e.getMessage(), e);
    }
  }

  /** Joins the fleet: registers, follows its policies, anchors the audit log every minute. */
  static FleetMember join(
      StateStore store,
      ServerContext context,
      PdpConfig config,
      AuditLog audit,
      InetSocketAddress address,
      ScheduledExecutorService housekeeping,
      BooleanSupplier stopped)
      throws IOException {
    FleetMember f = new FleetMember(store, context, config, audit, address, stopped);
    try {
      f.start(housekeeping, address);
    } catch (IOException | RuntimeException e) {
      f.removeScratch();
      throw e;
    }
    return f;
  }

  private void start(ScheduledExecutorService housekeeping, InetSocketAddress address)
      throws IOException {
    store.onConnectionChange(this::storeConnection);
    try {
      FleetMembers m = new FleetMembers(store, address);
      context.members(m);
      m.publish(0, false);
      housekeeping.scheduleWithFixedDelay(
          () -> m.publish(context.connections().size(), context.draining()),
          1,
          1,
          TimeUnit.SECONDS);
      if (config.audit() != null) {
        housekeeping.scheduleWithFixedDelay(this::anchorAudit, 60, 60, TimeUnit.SECONDS);
      }
    } catch (StoreException e) {
      throw new IOException("fleet membership: " + e.getMessage(), e);
    }
    policies = new FleetPolicies(store, member, context.policies(), this::applyPublished);
    try {
      policies.start();
    } catch (StoreException e) {
      throw new IOException("fleet policies: " + e.getMessage(), e);
    }
  }

  /**
   * The fleet's store: when this member's session is lost, its sessions have ended fleet-wide and
   * it decides federated requests fail-closed until it is back; its PEPs are better served by a
   * member that is not cut off, so it sends them to the least-loaded one it last knew of.
   */
  private void storeConnection(StateStore.Connection c) {
    FleetMembers m = context.members();
    if (c == StateStore.Connection.LOST && m != null && !stopped.getAsBoolean()) {
      InetSocketAddress to = m.leastLoadedOther();
      log.warn(
          "fleet store session lost: this PDP's sessions ended fleet-wide; {}",
          to == null
              ? "no other member known, its PEPs stay (federated decisions fail closed)"
              : "its PEPs are sent to " + to);
      context.cutOff(true); // new PEPs are sent on too
      if (to != null) {
        for (PepConnection pep : context.connections()) {
          pep.execute(() -> pep.redirectAll(to));
        }
      }
    } else if (c == StateStore.Connection.RECONNECTED
        && context.cutOff()
        && !stopped.getAsBoolean()) {
      log.info("fleet store back with a new session: this PDP serves again");
      if (m != null) {
        m.republish(context.connections().size(), context.draining());
      }
      context.cutOff(false);
    }
  }

  /** A policy version published to the fleet: load it here and push what changed. */
  private void applyPublished(int clientType, byte[] policy, int version) throws ConfigException {
    ClientTypePolicy p = context.policy(clientType);
    PolicyEngine next;
    try {
      next = p.reload(policy, policyScratch);
    } catch (ConfigException e) {
      log.warn(
          "fleet policy version {} for client type {} refused here, the previous one stays in"
              + " force: {}",
          version,
          hex(clientType),
          e.getMessage());
      audit.record(
          "policy-rejected",
          "clientType",
          clientType,
          "version",
          version,
          "detail",
          e.getMessage());
      throw e;
    }
    log.info(
        "policy for client type {}: fleet version {} loaded: {}",
        hex(clientType),
        version,
        next.describe());
    audit.record(
        "policy-reloaded", "clientType", clientType, "version", version, "policy", next.describe());
    for (PepConnection c : context.connections()) {
      c.execute(() -> c.reevaluate(clientType, next));
    }
  }

  /** Anchors the audit log's chain head in the fleet's store (docs/fleet.md). */
  void anchorAudit() {
    try {
      if (FleetAudit.anchor(store, config.audit(), audit.chainHead(), member, context.clock())) {
        log.debug("audit chain head {} anchored in the fleet's store", audit.chainHead());
      }
    } catch (IOException | StoreException | RuntimeException e) {
      log.warn("audit chain head not anchored: {}", e.getMessage());
    }
  }

  /**
   * Drains this fleet member: says so in the store (other members stop sending PEPs here), sends
   * every PEP to the least-loaded other member with a PDP-Redirect (each PEP re-sends its request
   * state there), new PEPs likewise, and waits at most {@code period} for the connections to go.
   * Without another member nothing is drained: the PDP's close says "shutting down".
   *
   * @return the connections still open when it stopped waiting
   */
  int drain(Duration period) {
    FleetMembers m = context.members();
    if (m == null) {
      return context.connections().size();
    }
    context.draining(true);
    m.publish(context.connections().size(), true);
    InetSocketAddress to = m.leastLoadedOther();
    if (to == null) {
      log.warn("draining: no other member of the fleet serves; PEPs will be told 'shutting down'");
      return context.connections().size();
    }
    log.info("draining: {} PEP connections sent to {}", context.connections().size(), to);
    for (PepConnection c : context.connections()) {
      c.execute(() -> c.redirectAll(to));
    }
    return context.awaitConnectionsGone(System.nanoTime() + period.toNanos());
  }

  /** Publishes what this member now runs for {@code clientType} (a local reload). */
  void publishLocal(int clientType) {
    policies.publishLocal(clientType);
  }

  /** At stop, after the audit log's last record: anchors its head, leaves the fleet. */
  @Override
  public void close() {
    if (config.audit() != null) {
      anchorAudit();
    }
    policies.close();
    context.members().close();
    removeScratch();
  }

  private void removeScratch() {
    try (var files = Files.list(policyScratch)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(policyScratch);
    } catch (IOException e) {
      log.debug("{} not removed: {}", policyScratch, e.getMessage());
    }
  }
}
