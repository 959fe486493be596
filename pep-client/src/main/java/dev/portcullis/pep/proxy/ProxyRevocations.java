package dev.portcullis.pep.proxy;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.Grants;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the proxy ends access (docs/security.md, principle 7): a Remove cuts its connection and ends
 * every cached grant of its subject, with the connections admitted on them; a LOGOUT ends the
 * subject's grants; connections admitted on a grant while no PDP was there are asked for once one
 * accepts, and cut unless granted. Holds the grants a PDP gave with a validity.
 *
 * <p>Belongs to the proxy's books ({@link Owners}): every method runs on the books' loop, the
 * PEP's, where its listener's calls and its decisions arrive in the order of its DECs.
 */
final class ProxyRevocations {
  private static final Logger log = LoggerFactory.getLogger(ProxyRevocations.class);

  private final Map<String, ProxiedConnection> conns; // written on the books' loop; read anywhere

  /**
   * The connections admitted on a cached grant and not asked for since: the only ones {@link
   * #revokeSubject} cuts and {@link #askForCached} asks for. (Both looked through every connection:
   * with each Remove of a mass revocation calling {@code revokeSubject}, cutting 1,000 connections
   * was a million steps, a third of the proxy's CPU in {@code ProxyBench}'s revocation by
   * async-profiler.)
   */
  private final Set<ProxiedConnection> onGrant = new HashSet<>();

  /**
   * The grants the PDP gave with a validity (its decision data's valid-for), by subject and
   * listener: until they expire or their subject is revoked, a new connection of that subject to
   * that listener is allowed while no PDP is reachable. Nothing else is ever allowed without a PDP.
   */
  private final Grants grants;

  private final GrantAnchors anchors;
  private final ProxyCounters counters;
  private final ProxyAudit audit;
  private final PepClient pep;
  private final Context context;
  private final EventExecutor books;

  ProxyRevocations(
      Map<String, ProxiedConnection> conns,
      Grants grants,
      GrantAnchors anchors,
      ProxyCounters counters,
      ProxyAudit audit,
      PepClient pep,
      Context context,
      EventExecutor books) {
    this.conns = conns;
    this.grants = grants;
    this.anchors = anchors;
    this.counters = counters;
    this.audit = audit;
    this.pep = pep;
    this.context = context;
    this.books = books;
  }

  /**
   * Admits {@code c} on its subject's grant on its listener, without a PDP's decision of its own:
   * the grant cached while no PDP can be asked ({@code pdpAway}), or a reused one that its request
   * state stands behind ({@link GrantAnchors}). False, and nothing admitted, if there is none.
   * (Before the books had one owner, a connection admitted while a revocation ran on another thread
   * could be missed by both unless registered first; on one loop the two cannot interleave.)
   */
  boolean admitOnGrant(ProxiedConnection c, boolean pdpAway) {
    if (grants.holds(c.subject, c.scope) && (pdpAway || anchors.admit(c))) {
      onGrant.add(c); // (reused: c stands on the grant's request state until it ends)
      return true;
    }
    return false;
  }

  /**
   * {@code c}'s Install gave its subject a grant for {@code validity} on its listener: kept for
   * while no PDP can be asked, and, on a listener that reuses grants, with its request state
   * standing behind it ({@link GrantAnchors}).
   */
  void granted(ProxiedConnection c, Duration validity) {
    grants.grant(c.subject, c.scope, validity);
    if (c.listener.reuseGrants()) {
      anchors.granted(c, validity);
    }
  }

  /**
   * {@code c} has ended: true if its request state is to be deleted now, false if it stands behind
   * a reused grant, which keeps it until the grant ends.
   */
  boolean ended(ProxiedConnection c) {
    onGrant.remove(c);
    anchors.left(c);
    return c.asked && !anchors.park(c);
  }

  /**
   * A later request of {@code c}'s subject in its scope was denied: its grant there ends (what was
   * admitted on it keeps the grant's request state at the PDP while it is open).
   */
  boolean denied(ProxiedConnection c) {
    anchors.revoke(c.subject, c.scope);
    return grants.revoke(c.subject, c.scope);
  }

  /** An idle grant's request state given back to the PDP (DRQ); false if none is idle. */
  boolean yieldIdleGrant() {
    return anchors.yieldIdle();
  }

  /**
   * The PDP changed the Install of {@code handle} and still grants: the grant it gave (cached, and
   * reused) now lasts the new decision's validity from now, or ends when it gives none. Without
   * this, a grant kept its first validity whatever the policy said later.
   */
  void regranted(String handle, PepDecision d) {
    Long secs = d.data() == null ? null : d.data().validForSeconds();
    Duration validity = secs == null || secs <= 0 ? null : Duration.ofSeconds(secs);
    GrantAnchors.Key k = anchors.regranted(handle, validity);
    ProxiedConnection c = conns.get(handle);
    String subject = k != null ? k.subject() : c != null && c.asked ? c.subject : null;
    String scope = k != null ? k.scope() : c != null ? c.scope : null;
    if (subject == null) {
      return; // not a request of a proxied connection (a session's, say)
    }
    if (validity == null) {
      grants.revoke(subject, scope);
    } else {
      grants.grant(subject, scope, validity);
    }
  }

  /** The ACCESS request for {@code subject}'s connection from {@code from} to {@code l}. */
  static AccessRequest access(ProxyConfig.Listener l, String subject, InetSocketAddress from) {
    InetSocketAddress to = l.upstream(); // the service the client reaches: what policy names
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        null,
        null,
        from.getAddress(),
        from.getPort(),
        to.getAddress(),
        to.getPort(),
        6,
        l.service(),
        l.access(),
        null,
        null);
  }

  /**
   * A PDP accepted the PEP again: each connection admitted under a cached grant while there was
   * none is asked for now, and cut unless it is granted. No open connection rests on a cached grant
   * once a PDP can be asked.
   */
  void askForCached() {
    List<ProxiedConnection> cached = List.copyOf(onGrant);
    onGrant.clear();
    for (ProxiedConnection c : cached) {
      if (c.asked || !c.client.isActive()) {
        continue;
      }
      c.asked = true; // its request state is deleted when it ends
      pep.request(
              c.handle,
              context,
              access(c.listener, c.subject, (InetSocketAddress) c.client.remoteAddress()))
          .whenComplete(
              (d, e) ->
                  Owners.run(
                      books,
                      () -> {
                        if (e != null) {
                          cut(c, null); // no decision: not on a grant a PDP could not confirm
                        } else if (!d.granted()) {
                          revoke(c.handle, d);
                        }
                      }));
    }
  }

  static String reason(PepDecision d) {
    return d.data() == null
        ? "no reason given"
        : "rule " + d.data().ruleId() + (d.data().reason() == null ? "" : ": " + d.data().reason());
  }

  /**
   * A Remove for {@code handle} (pushed by the PDP, or the answer to a request sent again after a
   * reconnect or a fail-over), or no decision for a connection admitted on a cached grant: its
   * connection is cut, and so is every grant of its subject, with the connections admitted on them.
   */
  void revoke(String handle, PepDecision d) {
    ProxiedConnection c = conns.get(handle);
    if (c == null) {
      String subject = anchors.removed(handle);
      if (subject != null) {
        revokeSubject(subject, "revoked"); // a grant's request state, its connection gone or going
      }
      return;
    }
    cut(c, d);
    revokeSubject(c.subject, "revoked");
  }

  private void cut(ProxiedConnection c, PepDecision d) {
    if (!take(c)) {
      return; // cut already
    }
    long now = System.nanoTime();
    counters.firstRevocationAt.compareAndSet(0, now);
    counters.lastRevocationAt.set(now);
    counters.revoked.incrementAndGet();
    if (log.isInfoEnabled()) { // the reason is built only to be logged
      log.info(
          "proxy {}: {} revoked: {}",
          c.listener.name(),
          c.handle,
          d == null ? "no decision" : reason(d));
    }
    audit.revoked(c.listener.name(), c.handle, d);
    c.close();
  }

  /**
   * The PDP is lost and {@code c}'s listener closes its connections then ({@code
   * on-pdp-loss="close-all"}): cut, audited as revoked with no decision, and not counted or logged
   * as a revocation (no PDP took it back; the loss itself is logged once).
   */
  void lost(ProxiedConnection c) {
    if (take(c)) {
      audit.revoked(c.listener.name(), c.handle, null);
      c.close();
    }
  }

  /** Takes {@code c} out of the open connections: false if it was out already (cut, ended). */
  private boolean take(ProxiedConnection c) {
    onGrant.remove(c);
    return conns.remove(c.handle) != null;
  }

  /**
   * Ends every cached grant of {@code subject}, and cuts its connections that were admitted on one
   * and not decided since (a connection the PDP decided stands on its own request state).
   */
  void revokeSubject(String subject, String why) {
    anchors.revoke(subject);
    int n = grants.revoke(subject);
    if (n > 0) {
      log.info("proxy: {} {}: {} cached grant(s) ended", subject, why, n);
    }
    List<ProxiedConnection> its = new ArrayList<>();
    for (ProxiedConnection c : onGrant) {
      if (!c.asked && c.subject.equals(subject)) {
        its.add(c);
      }
    }
    for (ProxiedConnection c : its) {
      cut(c, null);
    }
  }
}
