package dev.portcullis.pdp.tunnel;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelReport;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.RevokedSubjects;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.pdp.policy.mls.MlsEngine;
import dev.portcullis.pdp.tunnel.TunnelBook.End;
import dev.portcullis.pdp.tunnel.TunnelBook.Live;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Threads;
import dev.portcullis.support.WatchedFile;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PDP's tunnel desk (client type 0xC0A8, docs/tunnels.md): the AAA steps of the dynamic VPN
 * tunnels paper (its table 4), each one an audit record, and what ends a tunnel; the gateway agents
 * standing by and the tunnels granted, with where each end stands, are its {@link TunnelBook}.
 *
 * <p>A client agent's request is authenticated (its subject is the identity its TLS certificate
 * proved; a one-time credential it names enrolled that identity and carried no tunnel before),
 * authorized ({@link TunnelAuthority}: the tunnel policy, a fresh id and 256-bit key), then keyed
 * at the gateway first — the mirrored grant pushed on the gateway agent's standing request — and
 * only once the gateway reports its charon holds the tunnel is the client answered, so its IKE
 * never races the gateway's configuration. A tunnel ends at both ends when its client lets it go,
 * when either agent's connection ends, when its lifetime is over, when a new policy no longer
 * grants it, or when its subject is revoked; every end is pushed as a Remove and audited, and the
 * agents' accounting reports close the record.
 *
 * <p>All state, the book's too, lives on one thread of its own (the event loops hand work over), so
 * it needs no locks; DECs are written from there (Netty hands them to the connection's loop). No
 * key is kept: each grant is zeroed once written.
 */
public final class TunnelDesk implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TunnelDesk.class);

  public static final int TYPE = TunnelBook.TYPE;

  /** How long a gateway agent has to report its charon holds a new tunnel. */
  public static final Duration GATEWAY_WAIT = Duration.ofSeconds(10);

  private final TunnelAuthority authority;
  private final WatchedFile policyFile;
  private final TunnelAdmission admission;
  private final java.util.function.Supplier<MlsEngine> mls; // gives null: no MLS client type
  private final AuditLog audit;
  private final RevokedSubjects revoked;
  private final ScheduledExecutorService thread = Threads.owner("portcullis-pdp-tunnels");
  private final TunnelBook book;
  private final TunnelAuthority.Issuer issuer; // null: no CA, no certificate tunnels
  private final GatewayKeys<Waiting> keys = new GatewayKeys<>();
  private final Clock clock;

  /** A client's request decided, waiting for one of its gateway's one-time keys. */
  private static final class Waiting {
    final End client;
    final TunnelRequest request;
    final TunnelAuthority.Outcome outcome;
    final String gateway;
    ScheduledFuture<?> timeout;

    Waiting(End client, TunnelRequest request, TunnelAuthority.Outcome outcome, String gateway) {
      this.client = client;
      this.request = request;
      this.outcome = outcome;
      this.gateway = gateway;
    }
  }

  private TunnelDesk(
      TunnelAuthority authority,
      WatchedFile policyFile,
      CredentialStore credentials,
      TunnelAuthority.Issuer issuer,
      java.util.function.Supplier<MlsEngine> mls,
      AuditLog audit,
      RevokedSubjects revoked,
      Clock clock) {
    this.revoked = revoked;
    this.clock = clock;
    this.authority = authority;
    this.issuer = issuer;
    this.book = new TunnelBook(authority);
    this.policyFile = policyFile;
    this.admission = new TunnelAdmission(credentials);
    this.mls = mls;
    this.audit = audit;
  }

  /**
   * Loads the tunnel policy; a desk of its own thread.
   *
   * @param issuer the authority that certifies tunnels' one-time keys (the enrolment CA), or null
   *     when the PDP has none: then no rule may key its tunnels by certificates
   * @param mls the engine of the PDP's MLS client type now (it changes on reload), giving null when
   *     the PDP serves none
   * @param revoked the subjects an operator revoked: their requests are refused
   */
  public static TunnelDesk open(
      Path policyFile,
      CredentialStore credentials,
      TunnelAuthority.Issuer issuer,
      java.util.function.Supplier<MlsEngine> mls,
      AuditLog audit,
      Clock clock,
      RevokedSubjects revoked)
      throws ConfigException {
    WatchedFile watched = new WatchedFile(policyFile);
    TunnelPolicy p = TunnelPolicy.load(policyFile);
    checkIssuer(p, issuer, policyFile);
    if (p.needsSessions() && mls.get() == null) {
      throw new ConfigException(
          policyFile.toString(),
          "a rule requires multilevel sessions (mls-session=\"true\"), and this PDP serves no"
              + " client type with engine=\"mls\"",
          null);
    }
    TunnelDesk d =
        new TunnelDesk(
            new TunnelAuthority(p, clock, new SecureRandom()),
            watched,
            credentials,
            issuer,
            mls,
            audit,
            revoked,
            clock);
    log.info("tunnels: {}", p.describe()); // describe() names the file
    return d;
  }

  /** A policy whose rules key tunnels by certificates needs an authority to certify them. */
  private static void checkIssuer(TunnelPolicy p, TunnelAuthority.Issuer issuer, Path file)
      throws ConfigException {
    String rule = p.certificateRule();
    if (rule != null && issuer == null) {
      throw new ConfigException(
          file.toString(),
          "rule "
              + rule
              + " keys its tunnels by one-time key pairs (keying=\"certificates\", the default),"
              + " and this PDP has no authority to certify them: give its <security> an"
              + " <enrolment> (its CA certifies the tunnels' keys), or say keying=\"psk\"",
          null);
    }
  }

  private void run(Runnable r) {
    try {
      thread.execute(
          () -> {
            try {
              r.run();
            } catch (RuntimeException e) {
              log.error("tunnel desk: {}", e.toString(), e);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closing
    }
  }

  // ---- requests ---------------------------------------------------------------------------------

  /** A request of the tunnel client type, decoded (from the connection's loop). */
  public void request(PepLink c, Handle handle, Context context, TunnelRequest r) {
    run(
        () -> {
          End e = new End(c, handle, context);
          if (r.role() == TunnelRequest.Role.GATEWAY) {
            standBy(e, r);
          } else {
            grant(e, r);
          }
        });
  }

  private void standBy(End e, TunnelRequest r) {
    String why = TunnelAdmission.gatewayRefusal(authority.policy(), e.pep(), r);
    if (why != null) {
      e.conn().audit("tunnel-gateway-refused", e.pep(), "gateway", r.gateway(), "reason", why);
      log.warn("tunnels: {}", why);
      TunnelBook.decide(e, true, false, TunnelGrant.refusal(why));
      return;
    }
    End before = book.standBy(r.gateway(), e);
    if (before != null && before.conn() != e.conn()) {
      log.info("tunnels: gateway {} stands by on a new connection", r.gateway());
    }
    String refused = keys.offered(r.gateway(), r.publicKeys());
    if (refused != null) {
      log.warn("tunnels: gateway {}: a one-time public key refused: {}", r.gateway(), refused);
    }
    e.conn()
        .audit(
            "tunnel-gateway-ready",
            e.pep(),
            "gateway",
            r.gateway(),
            "publicKeys",
            keys.ready(r.gateway()));
    log.info(
        "tunnels: gateway {} ({}) stands by, {} one-time keys ready",
        r.gateway(),
        e.conn().peer,
        keys.ready(r.gateway()));
    TunnelBook.decide(e, true, true, null);
    serveWaiting(r.gateway());
  }

  private void grant(End e, TunnelRequest r) {
    String id = e.pep();
    e.conn()
        .audit(
            "tunnel-requested",
            id,
            "subject",
            r.subject(),
            "gateway",
            r.gateway(),
            "objective",
            r.objective().name(),
            "credential",
            r.credentialId());
    // Authentication (table 4, steps 2 and 4): the subject is who the certificate proved.
    String why = admission.clientRefusal(id, r);
    if (why != null) {
      refuse(e, r, null, why);
      return;
    }
    e.conn()
        .audit(
            "tunnel-authenticated",
            id,
            "subject",
            r.subject(),
            "credential",
            r.credentialId(),
            "certificate",
            e.conn().certificateSerial());
    RevokedSubjects.Revocation revocation = revoked.of(r.subject());
    if (revocation != null) { // an operator revoked the subject: whatever the policy says
      refuse(e, r, RevokedSubjects.RULE, revocation.decision().data().reason());
      return;
    }
    // Authorization (steps 2 and 4): the policy, then a fresh key for this tunnel.
    TunnelAuthority.Outcome o = authority.decide(r, TunnelAuthority.Sessions.of(mls.get()));
    if (!o.granted()) {
      refuse(e, r, o.rule(), o.reason());
      return;
    }
    TunnelAuthority.Granted g = authority.find(o.client().tunnelId());
    End gw = book.gateway(g.gateway());
    if (gw == null || !gw.conn().channel.isActive()) {
      withdraw(e, r, o, "gateway " + g.gateway() + "'s tunnel agent is not connected");
      return;
    }
    if (o.needsCertificates()) {
      Bytes key = keys.take(g.gateway());
      if (key == null) {
        await(e, r, o, g.gateway());
        return;
      }
      certified(e, r, o, key);
      return;
    }
    keyed(e, r, o);
  }

  /** Waits for one of gateway {@code gateway}'s one-time keys, at most {@link #GATEWAY_WAIT}. */
  private void await(End e, TunnelRequest r, TunnelAuthority.Outcome o, String gateway) {
    Waiting w = new Waiting(e, r, o, gateway);
    if (!keys.await(gateway, w)) {
      withdraw(
          e,
          r,
          o,
          "gateway "
              + gateway
              + " has no one-time key ready, and "
              + GatewayKeys.MAX_WAITING
              + " requests wait for one already");
      return;
    }
    w.timeout =
        thread.schedule(
            () -> {
              if (keys.remove(gateway, w)) {
                withdraw(
                    e,
                    r,
                    o,
                    "gateway "
                        + gateway
                        + "'s agent had no one-time key ready within "
                        + GATEWAY_WAIT.toSeconds()
                        + " s (it makes one for each tunnel it keys)");
              }
            },
            GATEWAY_WAIT.toMillis(),
            TimeUnit.MILLISECONDS);
    log.debug("tunnels: {} waits for a one-time key of gateway {}", o.client().tunnelId(), gateway);
  }

  /** Gateway {@code gateway} has keys ready: the requests waiting for them go on, in order. */
  private void serveWaiting(String gateway) {
    for (Waiting w = keys.next(gateway); w != null; w = keys.next(gateway)) {
      w.timeout.cancel(false);
      String id = w.outcome.client().tunnelId();
      if (!w.client.conn().channel.isActive()) {
        authority.ended(id); // its client left: nobody to answer
        w.outcome.client().zero();
        continue;
      }
      if (authority.find(id) == null) {
        withdraw(w.client, w.request, w.outcome, "tunnel " + id + " ended before it was keyed");
        continue;
      }
      End gw = book.gateway(gateway);
      if (gw == null || !gw.conn().channel.isActive()) {
        withdraw(w.client, w.request, w.outcome, "gateway " + gateway + "'s agent left");
        continue;
      }
      certified(w.client, w.request, w.outcome, keys.take(gateway));
    }
  }

  /** Certifies both ends' keys for the tunnel, then keys it. */
  private void certified(End e, TunnelRequest r, TunnelAuthority.Outcome o, Bytes gatewayKey) {
    TunnelAuthority.Outcome c;
    try {
      c = authority.certify(o, gatewayKey, issuer);
    } catch (java.security.GeneralSecurityException x) {
      withdraw(e, r, o, "the tunnel's keys cannot be certified: " + x.getMessage());
      return;
    }
    keyed(e, r, c);
  }

  /**
   * The decided tunnel's credential spent, then both ends keyed at once: the client holds its end
   * until the gateway reports its own (then {@link TunnelBook#start}).
   */
  private void keyed(End e, TunnelRequest r, TunnelAuthority.Outcome o) {
    String id = e.pep();
    TunnelAuthority.Granted g = authority.find(o.client().tunnelId());
    End gw = book.gateway(g.gateway());
    if (r.credentialId() != null) {
      // accounting, step 2: the one-time key pair's use is spent, durably, before any key leaves
      String spent = admission.spend(r.credentialId(), g.id());
      if (spent != null) {
        withdraw(e, r, o, spent);
        return;
      }
      e.conn().audit("credential-spent", id, "credential", r.credentialId(), "tunnel", g.id());
    }
    Live t = new Live(g, e, gw, clock.instant());
    book.add(t);
    e.conn()
        .audit(
            "tunnel-authorized",
            id,
            "tunnel",
            g.id(),
            "subject",
            g.subject(),
            "gateway",
            g.gateway(),
            "objective",
            g.objective().name(),
            "rule",
            g.rule(),
            "inner",
            g.inner().toString(),
            "ikeId",
            g.ikeId(),
            "until",
            g.until().toString());
    // Both ends load at once; the client initiates once the gateway's charon holds the tunnel.
    book.key(t, o.gateway(), o.client());
    t.waiting =
        thread.schedule(() -> gatewayLate(g.id()), GATEWAY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    log.info(
        "tunnels: {} granted to {} at {} ({}, rule {}), keyed at both ends",
        g.id(),
        g.subject(),
        g.gateway(),
        g.objective(),
        g.rule());
  }

  /** A tunnel decided but not to be made after all: forgotten, its keys zeroed, refused. */
  private void withdraw(End e, TunnelRequest r, TunnelAuthority.Outcome o, String why) {
    authority.ended(o.client().tunnelId());
    o.client().zero();
    o.gateway().zero();
    refuse(e, r, o.rule(), why);
  }

  private void refuse(End e, TunnelRequest r, String rule, String why) {
    e.conn().server.counters().securityRefusal();
    e.conn().server.refusals().warn("tunnel refusals", "tunnels: PEP {} refused: {}", e.pep(), why);
    e.conn()
        .audit(
            "tunnel-refused",
            e.pep(),
            "subject",
            r.subject(),
            "gateway",
            r.gateway(),
            "rule",
            rule,
            "reason",
            why);
    TunnelBook.decide(e, true, false, TunnelGrant.refusal(why));
  }

  /** The gateway did not report in time: the tunnel is refused to its client and taken back. */
  private void gatewayLate(String id) {
    Live t = book.get(id);
    if (t != null && t.held) {
      book.end(t, "gateway " + t.granted.gateway() + " did not install the tunnel in time");
    }
  }

  // ---- reports ----------------------------------------------------------------------------------

  /** An agent's report on a tunnel (from the connection's loop). */
  public void report(PepLink c, Handle handle, TunnelReport r) {
    run(() -> reported(c, handle, r));
  }

  private void reported(PepLink c, Handle handle, TunnelReport r) {
    if (r.publicKey() != null) {
      String gateway = book.gatewayAt(c, handle);
      if (gateway != null) {
        String refused = keys.fresh(gateway, r.publicKey());
        if (refused != null) {
          log.warn("tunnels: gateway {}: a one-time public key refused: {}", gateway, refused);
        }
        serveWaiting(gateway);
      }
    }
    Live t = book.get(r.tunnelId());
    boolean atGateway = t != null && t.gateway.conn() == c && t.gateway.handle().equals(handle);
    boolean atClient = t != null && t.client.conn() == c && t.client.handle().equals(handle);
    if (r.state() == TunnelReport.State.ACCOUNTING) {
      // counters of a live tunnel, every Accounting timer: kept for the view, not an event to audit
      if (atGateway || atClient) {
        TunnelBook.Counted n = new TunnelBook.Counted(r.bytesIn(), r.bytesOut(), clock.instant());
        if (atGateway) {
          t.gatewayCounted = n;
        } else {
          t.clientCounted = n;
        }
      }
      return;
    }
    Object[] counters =
        r.state() == TunnelReport.State.DOWN
            ? new Object[] {
              "bytesIn", r.bytesIn(),
              "bytesOut", r.bytesOut(),
              "packetsIn", r.packetsIn(),
              "packetsOut", r.packetsOut(),
              "seconds", r.durationSeconds()
            }
            : new Object[0];
    List<Object> kv = new ArrayList<>(List.of("tunnel", r.tunnelId()));
    kv.add("end");
    kv.add(atGateway ? "gateway" : atClient ? "client" : "unknown");
    kv.add("reason");
    kv.add(r.reason());
    kv.addAll(List.of(counters));
    c.audit(
        "tunnel-" + r.state().name().toLowerCase(java.util.Locale.ROOT), c.pepId(), kv.toArray());
    if (!atGateway && !atClient) {
      return; // an ended tunnel's last accounting, or a tunnel this PEP does not hold
    }
    String state = r.state().name().toLowerCase(java.util.Locale.ROOT);
    if (atGateway) {
      t.gatewayState = state;
    } else {
      t.clientState = state;
    }
    if (atGateway && r.state() == TunnelReport.State.UP && t.held) {
      book.start(t);
    } else if (atGateway && r.state() == TunnelReport.State.FAILED && t.held) {
      book.end(
          t, "gateway " + t.granted.gateway() + " could not install the tunnel: " + r.reason());
    } else if (atGateway && r.state() == TunnelReport.State.DOWN) {
      // the gateway took a live tunnel down itself (it could not hold it): its client's end goes
      book.end(t, "gateway " + t.granted.gateway() + " took the tunnel down: " + r.reason());
    }
  }

  // ---- ends -------------------------------------------------------------------------------------

  /** A client deleted its tunnel's request state (DRQ): the tunnel ends at the gateway too. */
  public void released(PepLink c, Handle handle) {
    run(
        () -> {
          forgetWaiting(w -> w.client.conn() == c && w.client.handle().equals(handle));
          book.endWhere(
              t -> t.client.conn() == c && t.client.handle().equals(handle),
              t -> "released by " + t.client.pep());
        });
  }

  /**
   * Tunnels {@code gone} end with {@code reason}: those keyed, at both ends; those still waiting
   * for a gateway's key, refused to their client at once.
   */
  private void ended(List<TunnelAuthority.Granted> gone, String reason) {
    java.util.Set<String> ids = new java.util.HashSet<>();
    gone.forEach(g -> ids.add(g.id()));
    for (Waiting w : keys.removeWhere(w -> ids.contains(w.outcome.client().tunnelId()))) {
      w.timeout.cancel(false);
      withdraw(w.client, w.request, w.outcome, reason);
    }
    book.ended(gone, reason);
  }

  /** Requests waiting for a gateway's key whose client left: forgotten, nothing sent. */
  private void forgetWaiting(java.util.function.Predicate<Waiting> which) {
    for (Waiting w : keys.removeWhere(which)) {
      w.timeout.cancel(false);
      authority.ended(w.outcome.client().tunnelId());
    }
  }

  /** A connection ended (or closed the tunnel client type): its tunnels end at the other end. */
  public void gone(PepLink c) {
    run(
        () -> {
          forgetWaiting(w -> w.client.conn() == c);
          book.gone(c);
        });
  }

  /**
   * Multilevel sessions changed (a LOGIN, a change of level, a LOGOUT, here or at another member):
   * tunnels whose rule's session requirements no longer hold end at both ends.
   */
  public void sessionsChanged() {
    run(
        () ->
            ended(
                authority.review(TunnelAuthority.Sessions.of(mls.get())),
                "the subject's multilevel session ended"));
  }

  /** Tunnels whose lifetime is over end at both ends (housekeeping, every second). */
  public void expire() {
    run(() -> ended(authority.expired(), "lifetime over"));
  }

  /** Ends every tunnel of {@code subject} (its revocation); returns how many. */
  public int revokeSubject(String subject, String reason) {
    return call(
        () -> {
          List<TunnelAuthority.Granted> g = authority.revokeSubject(subject);
          ended(g, reason);
          return g.size();
        });
  }

  /**
   * As {@link #revokeSubject}, handed to the desk's thread without waiting for it (an operator's
   * revocation, which may come from an event loop).
   */
  public void revokeSubjectSoon(String subject, String reason) {
    run(() -> ended(authority.revokeSubject(subject), reason));
  }

  /** Ends tunnel {@code id} at both ends; false if no such tunnel is granted. */
  public boolean revoke(String id, String reason) {
    return call(() -> end(id, reason));
  }

  /** Ends tunnel {@code id} (on the desk's thread); false if no such tunnel is granted. */
  private boolean end(String id, String reason) {
    Live t = book.get(id);
    if (t == null) {
      return false;
    }
    book.end(t, reason);
    return true;
  }

  /**
   * As {@link #revoke}, on the desk's thread without waiting for it (an operator's, from an event
   * loop): completes with false if no such tunnel is granted.
   */
  public java.util.concurrent.CompletableFuture<Boolean> revokeSoon(String id, String reason) {
    try {
      return java.util.concurrent.CompletableFuture.supplyAsync(() -> end(id, reason), thread);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      return java.util.concurrent.CompletableFuture.completedFuture(false);
    }
  }

  /** Reloads the policy when its file changed (housekeeping, every 2 s). */
  public void watchPolicy() {
    run(
        () -> {
          if (policyFile.changed()) {
            try {
              reloaded();
            } catch (ConfigException e) {
              // logged and audited; the running policy stays in force
            }
          }
        });
  }

  /** Reads the policy again; tunnels it no longer grants end at both ends. */
  public void reload() throws ConfigException {
    ConfigException failed =
        call(
            () -> {
              policyFile.take();
              try {
                reloaded();
                return null;
              } catch (ConfigException e) {
                return e;
              }
            });
    if (failed != null) {
      throw failed;
    }
  }

  private void reloaded() throws ConfigException {
    TunnelPolicy next;
    try {
      next = TunnelPolicy.load(policyFile.path());
    } catch (ConfigException e) {
      log.warn("tunnel policy rejected, the previous one stays in force: {}", e.getMessage());
      audit.record("policy-rejected", "clientType", TYPE, "detail", e.getMessage());
      throw e;
    }
    try {
      checkIssuer(next, issuer, policyFile.path());
    } catch (ConfigException e) {
      log.warn("tunnel policy rejected, the previous one stays in force: {}", e.getMessage());
      audit.record("policy-rejected", "clientType", TYPE, "detail", e.getMessage());
      throw e;
    }
    List<TunnelAuthority.Granted> gone = authority.reload(next);
    log.info(
        "tunnel policy reloaded: {}; {} tunnels no longer granted", next.describe(), gone.size());
    audit.record("policy-reloaded", "clientType", TYPE, "policy", next.describe());
    ended(gone, "the tunnel policy no longer grants it");
  }

  /** The tunnels granted now, with where each end stands. */
  public List<TunnelBook.View> view() {
    return call(book::view);
  }

  /** As {@link #view}, completed on the desk's thread without waiting for it (a loop asks). */
  public java.util.concurrent.CompletableFuture<List<TunnelBook.View>> viewSoon() {
    try {
      return java.util.concurrent.CompletableFuture.supplyAsync(book::view, thread);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      return java.util.concurrent.CompletableFuture.completedFuture(List.of());
    }
  }

  /** The gateways whose agents stand by. */
  public List<String> gateways() {
    return call(book::gateways);
  }

  private <T> T call(java.util.concurrent.Callable<T> c) {
    try {
      return thread.submit(c).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("tunnel desk: " + e, e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
