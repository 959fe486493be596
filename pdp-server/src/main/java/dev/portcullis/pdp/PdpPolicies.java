package dev.portcullis.pdp;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.pdp.tunnel.TunnelDesk;
import dev.portcullis.support.ConfigException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running PDP's policies changing (docs/pdp.md): a client type's policy file loaded again and
 * pushed to exactly the PEPs whose installed decisions changed (and to the fleet), the files marked
 * to be watched checked, shared state (a fleet session) re-deciding what it affects, and PEPs asked
 * to resynchronize. {@link PdpServer} is the public face of all of it.
 */
final class PdpPolicies {
  private static final Logger log = LoggerFactory.getLogger(PdpPolicies.class);

  private final ServerContext context;
  private final AuditLog audit;
  private final BooleanSupplier closed;
  private volatile FleetMember fleet; // set once the PDP has joined its fleet, if it has one

  PdpPolicies(ServerContext context, AuditLog audit, BooleanSupplier closed) {
    this.context = context;
    this.audit = audit;
    this.closed = closed;
  }

  /** This PDP joined {@code f}: a reload here is published to the other members. */
  void fleet(FleetMember f) {
    this.fleet = f;
  }

  /**
   * Reloads one client type's policy file and pushes changed decisions to exactly the PEPs whose
   * installed decisions changed.
   *
   * @throws ConfigException if the file is invalid; the running policy stays in force
   * @throws IllegalArgumentException if the client type is not served
   */
  void reload(int clientType) throws ConfigException {
    ClientTypePolicy p = context.policy(clientType);
    if (p == null) {
      throw new IllegalArgumentException("client type " + hex(clientType) + " is not served");
    }
    PolicyEngine next;
    try {
      next = p.reload();
    } catch (ConfigException e) {
      log.warn(
          "policy for client type {} rejected, the previous one stays in force: {}",
          hex(clientType),
          e.getMessage());
      audit.record("policy-rejected", "clientType", clientType, "detail", e.getMessage());
      throw e;
    }
    log.info("policy for client type {} reloaded: {}", hex(clientType), next.describe());
    audit.record("policy-reloaded", "clientType", clientType, "policy", next.describe());
    for (PepConnection c : context.connections()) {
      c.execute(() -> c.reevaluate(clientType, next));
    }
    if (fleet != null) {
      fleet.publishLocal(clientType); // every member of the fleet loads it too
    }
  }

  /** Reloads every client type's policy; the first failure is thrown after trying all. */
  void reloadAll() throws ConfigException {
    ConfigException first = null;
    for (int type : context.policies().keySet()) {
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

  /**
   * The policy files marked to be watched, reloaded when they changed (housekeeping, every 2 s).
   */
  void watch() {
    for (ClientTypePolicy p : context.policies().values()) {
      if (p.watch && p.changed()) {
        try {
          reload(p.clientType);
        } catch (ConfigException | RuntimeException e) {
          // logged by reload
        }
      }
    }
  }

  /**
   * Shared state (a fleet session) changed: every connection decides its installed requests of
   * {@code clientType} that {@code affected} selects again, with the engine then in force, and
   * pushes what changed.
   */
  void stateChanged(int clientType, Predicate<PolicyRequest> affected) {
    if (closed.getAsBoolean()) {
      return;
    }
    TunnelDesk desk = context.tunnels();
    if (desk != null) {
      desk.sessionsChanged(); // a tunnel may rest on a multilevel session
    }
    decideAgain(clientType, affected);
  }

  /**
   * An operator revoked {@code subject} (the list the decisions read changed first): every
   * connection decides its installed requests of {@code subject}, of every client type, again and
   * pushes the Removes.
   */
  void revoked(String subject) {
    for (int type : context.policies().keySet()) {
      decideAgain(type, q -> subject.equals(q.access().subject()));
    }
  }

  /**
   * Every connection decides its installed requests {@code affected} selects again, on its loop.
   */
  private void decideAgain(int clientType, Predicate<PolicyRequest> affected) {
    for (PepConnection c : context.connections()) {
      c.execute(() -> c.reevaluate(clientType, context.engine(clientType), affected));
    }
  }

  /** Asks every PEP with {@code clientType} open to resynchronize its state (SSQ). */
  void synchronize(int clientType) {
    for (PepConnection c : context.connections()) {
      c.execute(() -> c.synchronize(clientType));
    }
  }
}
