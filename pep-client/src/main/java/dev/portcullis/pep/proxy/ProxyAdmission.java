package dev.portcullis.pep.proxy;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who gets through the proxy (docs/pep-proxy.md): an accepted connection is asked for at the PDP
 * (after its subject's MLS session where the listener carries one) and connected upstream on an
 * Install, admitted on a cached grant while no PDP is there (or on a reused one while it is), or
 * refused; and each connection's end deletes its request state and is audited. {@link PepProxy}
 * owns the listeners, the PEP and the lifecycle; {@link ProxyRevocations} ends what was admitted.
 *
 * <p>A connection is accepted on its client's loop and decided on the books' loop ({@link Owners}),
 * which owns the open connections, their request states and grants; what touches its channels
 * (connecting upstream, relaying) goes back to its client's loop. With one thread (the default),
 * both are that thread and nothing is handed over.
 */
final class ProxyAdmission {
  private static final Logger log = LoggerFactory.getLogger(ProxyAdmission.class);

  private final Map<String, ProxiedConnection> conns; // written on the books' loop; read anywhere
  private long sequence; // the books' loop
  private final PepClient pep;
  private final Context context;
  private final ProxyCounters counters;
  private final ProxyAudit audit;
  private final ProxySessions sessions;
  private final ProxyRevocations revocations;
  private final UpstreamConnector upstreams;
  private final EventExecutor books;

  ProxyAdmission(
      Map<String, ProxiedConnection> conns,
      PepClient pep,
      Context context,
      ProxyCounters counters,
      ProxyAudit audit,
      ProxySessions sessions,
      ProxyRevocations revocations,
      UpstreamConnector upstreams,
      EventExecutor books) {
    this.conns = conns;
    this.pep = pep;
    this.context = context;
    this.counters = counters;
    this.audit = audit;
    this.sessions = sessions;
    this.revocations = revocations;
    this.upstreams = upstreams;
    this.books = books;
  }

  /**
   * A connection accepted (on its client's loop): ask the PDP for {@code subject}'s connection,
   * then connect upstream or close.
   */
  void decide(ProxyConfig.Listener l, SocketChannel client, String subject) {
    InetSocketAddress from = client.remoteAddress();
    if (subject == null) {
      counters.noSubject.incrementAndGet();
      audit.refused(l.name(), from, null, "no-subject");
      log.debug(
          "proxy {}: connection from {} refused: no subject for that address", l.name(), from);
      client.close();
      return;
    }
    if (!Owners.run(books, () -> decideOnBooks(l, client, subject, from))) {
      client.close(); // the proxy is stopping
    }
  }

  private void decideOnBooks(
      ProxyConfig.Listener l, SocketChannel client, String subject, InetSocketAddress from) {
    if (!pep.isOpen()) {
      if (onGrant(l, client, subject, from, true)) {
        return;
      }
      counters.failedClosed.incrementAndGet();
      audit.refused(l.name(), from, subject, "no-pdp");
      log.debug("proxy {}: connection from {} refused: no PDP (failing closed)", l.name(), from);
      client.close();
      return;
    }
    if (l.reuseGrants() && onGrant(l, client, subject, from, false)) {
      return;
    }
    String handle = l.name() + "-" + ++sequence;
    ProxiedConnection conn = new ProxiedConnection(handle, l, client, subject, true);
    conns.put(handle, conn);
    client.closeFuture().addListener(f -> ended(conn));
    if (l.session() == null) {
      ask(conn, subject, from);
      return;
    }
    // the subject's session first (logged in, or moved, at this listener's level)
    conn.session = sessions.enter(subject, l.name(), l.session());
    conn.session.ready.whenComplete(
        (v, e) ->
            Owners.run(
                books,
                () -> {
                  if (e == null) {
                    ask(conn, subject, from);
                  } else {
                    denied(conn, subject, from, null, e.getCause() != null ? e.getCause() : e);
                  }
                }));
  }

  /**
   * Admits {@code client} on {@code subject}'s grant on {@code l}, if it holds one: cached, while
   * no PDP can be asked ({@code pdpAway}), or reused while one is there (its request state held at
   * the PDP). False, with nothing done, if it holds none.
   */
  private boolean onGrant(
      ProxyConfig.Listener l,
      SocketChannel client,
      String subject,
      InetSocketAddress from,
      boolean pdpAway) {
    String kind = pdpAway ? "-cached-" : "-reused-";
    ProxiedConnection c =
        new ProxiedConnection(l.name() + kind + ++sequence, l, client, subject, false);
    if (!revocations.admitOnGrant(c, pdpAway)) {
      return false;
    }
    conns.put(c.handle, c);
    (pdpAway ? counters.allowedFromCache : counters.allowedOnGrant).incrementAndGet();
    log.debug(
        "proxy {}: connection from {} as {} allowed {}",
        l.name(),
        from,
        subject,
        pdpAway ? "without a PDP: an earlier grant is still valid" : "on its reused grant");
    audit.allowedOnGrant(l, c.handle, subject, from, c.grant);
    client.closeFuture().addListener(f -> ended(c));
    c.onClientLoop(
        () -> {
          c.admitted = true;
          upstreams.connect(c);
        });
    return true;
  }

  /** The connection's ACCESS request; connects upstream on an Install, closes on anything else. */
  private void ask(ProxiedConnection conn, String subject, InetSocketAddress from) {
    if (!conn.client.isActive()) {
      return; // gone while its session was opened
    }
    long asked = System.nanoTime();
    if (conn.listener.connectWithRequest()) {
      // meanwhile: nothing is relayed before the Install (admit)
      conn.onClientLoop(() -> upstreams.connect(conn));
    }
    send(conn, subject, from, asked, true);
  }

  /**
   * Sends the connection's request; {@code mayRetry}: once, when the PDP refuses it for lack of
   * room (error 4) and an idle grant gave its request state back (GrantAnchors#yieldIdle).
   */
  private void send(
      ProxiedConnection conn,
      String subject,
      InetSocketAddress from,
      long asked,
      boolean mayRetry) {
    pep.request(conn.handle, context, ProxyRevocations.access(conn.listener, subject, from))
        .whenComplete(
            // On the books' loop, the PEP's, in the order of its DECs: a grant is remembered
            // before a later Remove of the same subject can be seen, so that Remove ends it.
            (d, e) -> Owners.run(books, () -> decided(conn, subject, from, asked, mayRetry, d, e)));
  }

  private void decided(
      ProxiedConnection conn,
      String subject,
      InetSocketAddress from,
      long asked,
      boolean mayRetry,
      PepDecision d,
      Throwable e) {
    if (mayRetry && noRoom(e) && revocations.yieldIdleGrant()) {
      send(conn, subject, from, asked, false); // after the yielded grant's DRQ
      return;
    }
    Timer rtt = counters.decisionRoundTrip;
    if (rtt != null && e == null) {
      rtt.record(System.nanoTime() - asked, TimeUnit.NANOSECONDS);
    }
    if (e != null || !d.granted()) {
      denied(conn, subject, from, d, e);
      return;
    }
    Long secs = d.data() == null ? null : d.data().validForSeconds();
    if (secs != null && secs > 0) {
      revocations.granted(conn, Duration.ofSeconds(secs));
    }
    ProxyConfig.Listener l = conn.listener;
    counters.allowed.incrementAndGet();
    audit.decided(l, conn.handle, subject, from, d, null);
    log.debug(
        "proxy {}: {} from {} as {} allowed ({})",
        l.name(),
        conn.handle,
        from,
        subject,
        ProxyRevocations.reason(d));
    conn.onClientLoop(
        () -> {
          upstreams.admit(conn);
          if (!l.connectWithRequest()) {
            upstreams.connect(conn);
          }
        });
  }

  /** Whether {@code e} is the PDP's "Unable to process" (error 4: a limit, such as max-handles). */
  private static boolean noRoom(Throwable e) {
    Throwable t = e instanceof java.util.concurrent.CompletionException c ? c.getCause() : e;
    return t instanceof dev.portcullis.pep.PepException p
        && p.error() == dev.portcullis.cops.ErrorCode.UNABLE_TO_PROCESS;
  }

  /** A Remove ({@code d}), or no decision ({@code e}: no answer, a refused session): closed. */
  private void denied(
      ProxiedConnection conn, String subject, InetSocketAddress from, PepDecision d, Throwable e) {
    counters.denied.incrementAndGet();
    if ((d != null || e instanceof ProxySessions.Refused) && revocations.denied(conn)) {
      // a later denial here ends the subject's earlier grant here
      log.info("proxy {}: {} denied: its cached grant ended", conn.listener.name(), subject);
    }
    audit.decided(conn.listener, conn.handle, subject, from, d, e);
    log.debug(
        "proxy {}: {} from {} as {} denied: {}",
        conn.listener.name(),
        conn.handle,
        from,
        subject,
        e != null ? e.getMessage() : ProxyRevocations.reason(d));
    conn.client.close();
  }

  /** The client's connection closed (on its loop): its channel side ends here, its books there. */
  private void ended(ProxiedConnection conn) {
    if (!conn.cut) {
      Relay.flushThenClose(conn.upstream); // what the client sent before it left still goes out
    }
    audit.closed(
        conn.listener.name(),
        conn.handle,
        conn.toUpstream == null ? 0 : conn.toUpstream.bytes(),
        conn.toClient == null ? 0 : conn.toClient.bytes(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - conn.started));
    Owners.run(books, () -> forget(conn)); // stopping: the PEP's Client-Close ends every state
  }

  private void forget(ProxiedConnection conn) {
    conns.remove(conn.handle, conn);
    if (revocations.ended(conn)) {
      pep.delete(conn.handle, ReasonCode.TEAR); // the request state goes with the connection
    }
    if (conn.session != null && sessions.leave(conn.session)) {
      revocations.revokeSubject(
          conn.subject, "logged out"); // the last connection ended the session
    }
  }
}
