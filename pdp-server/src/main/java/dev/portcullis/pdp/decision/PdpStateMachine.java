package dev.portcullis.pdp.decision;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.cops.AcctTimer;
import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.KaTimer;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.SyncStateRequest;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.connection.ConnectionLimits;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pdp.connection.PepAdmission;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.PepView;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.pdp.connection.Sessions.Installed;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PDP side of RFC 2748 for one PEP connection, speaking COPS messages only: Client-Open per
 * client type (once {@link PepAdmission} let it through), request state per handle, decisions,
 * reports, deletes, synchronization, Client-Close both ways, redirects, unsolicited decisions after
 * a policy change, and the answers to malformed input. The server reaches it through {@link
 * #execute}; everything runs on the connection's event loop.
 */
public final class PdpStateMachine extends ChannelInboundHandlerAdapter implements PepConnection {
  private static final Logger log = LoggerFactory.getLogger(PdpStateMachine.class);

  private final PepLink link;
  private final PdpContext server;
  private final Sessions sessions;
  private final RequestDecisions decisions;

  /** What the request limit needs to know of the requests being decided here. */
  public RequestLimit.Deciding deciding() {
    return decisions;
  }

  /**
   * @param sessions the connection's request states, which this machine owns (the link sees them
   *     read-only)
   */
  public PdpStateMachine(PepLink link, Sessions sessions) {
    this.link = link;
    this.server = link.server;
    this.sessions = sessions;
    this.decisions = new RequestDecisions(link, sessions);
  }

  @Override
  public String pepId() {
    return link.pepId();
  }

  /** Runs {@code task} on this connection's event loop. */
  @Override
  public void execute(Runnable task) {
    link.channel.eventLoop().execute(task);
  }

  /** Sends a Client-Close for every open client type, then closes (event loop only). */
  @Override
  public void closeAll(ErrorCode code) {
    link.closeAll(code);
  }

  /** Sends this PEP to another PDP (draining): a PDP-Redirect for every open client type. */
  @Override
  public void redirectAll(InetSocketAddress to) {
    if (link.closing()) {
      return;
    }
    String pepId = link.pepId();
    log.info("draining: PEP {} sent to {}", pepId, to);
    link.audit("redirected", pepId, "to", to.toString(), "reason", "draining");
    link.redirectAll(to.getAddress(), to.getPort());
  }

  /** Requests an asynchronous engine is still deciding. */
  @Override
  public int decisionsInFlight() {
    return decisions.inFlight();
  }

  /** Handles with request state, over every open client type. */
  @Override
  public int openHandles() {
    return sessions.handles();
  }

  @Override
  public java.util.concurrent.CompletableFuture<PepView> view(
      boolean withDecisions, String subject, int most) {
    java.util.concurrent.CompletableFuture<PepView> f =
        new java.util.concurrent.CompletableFuture<>();
    try {
      execute(() -> f.complete(view0(withDecisions, subject, most)));
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      f.completeExceptionally(closing);
    }
    return f;
  }

  /** The view, on the event loop that owns the request states it reads. */
  private PepView view0(boolean withDecisions, String subject, int most) {
    java.util.List<Integer> types = new java.util.ArrayList<>();
    java.util.List<PepView.Decision> held = new java.util.ArrayList<>();
    for (Map.Entry<Integer, Map<Handle, Installed>> s : sessions.all()) {
      types.add(s.getKey());
      if (!withDecisions) {
        continue;
      }
      for (Map.Entry<Handle, Installed> e : s.getValue().entrySet()) {
        Installed i = e.getValue();
        String who = i.request() == null ? null : i.request().access().subject();
        if (subject != null && !subject.equals(who)) {
          continue;
        }
        if (held.size() >= most) {
          break; // the operator's answer is bounded: the count of all is in handles
        }
        held.add(
            new PepView.Decision(
                s.getKey(),
                e.getKey().value().toHex(),
                who,
                i.request() == null
                    ? null
                    : i.request().access().operation().name().toLowerCase(java.util.Locale.ROOT),
                i.decision() == null || i.decision().install(),
                i.decision() == null ? null : i.decision().data().ruleId()));
      }
    }
    java.util.Collections.sort(types);
    return new PepView(
        link.pepId(),
        link.peer,
        link.acceptedWhen,
        types,
        sessions.handles(),
        link.tlsIdentity(),
        held);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (!server.register(this)) {
      server
          .refusals()
          .warn(
              "connection limit",
              "refused connection from {}: {} connections open (limit)",
              link.peer,
              server.limits().maxConnections());
      ctx.close();
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    for (Map.Entry<Integer, Map<Handle, Installed>> s : sessions.all()) {
      release(s.getKey(), s.getValue());
    }
    sessions.clear();
    decisions.closedAll();
    server.unregister(this);
    link.time(PdpTimings.Phase.CONNECTION, link.acceptedAt);
    String pepId = link.pepId();
    if (pepId != null) {
      log.info("PEP {} ({}) disconnected", pepId, link.peer);
      link.audit("disconnected", pepId, "connectionNanos", server.nanoTime() - link.acceptedAt);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // I/O errors (connection reset) end the connection; nothing a PEP sends gets here, the
    // decoder turns it into a CopsDecodeFailure.
    log.debug("connection {} failed: {}", link.peer, cause.toString());
    ctx.close();
  }

  /**
   * Answers are written as requests are read and flushed once per batch of reads: one system call
   * for all the decisions a burst of requests produced.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
    ctx.fireChannelReadComplete();
  }

  // ---- inbound ----------------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof CopsDecodeFailure f) {
      link.malformed(f.cause());
      return;
    }
    if (msg instanceof Sessions.Install i) {
      install(i);
      return;
    }
    CopsMessage m = (CopsMessage) msg; // none is read once the PDP is closing
    switch (m.opCode()) {
      case OPN -> open((ClientOpen) m);
      case REQ -> request((Request) m);
      case RPT -> report((Report) m);
      case DRQ -> delete((DeleteRequest) m);
      case CC -> clientClose((ClientClose) m);
      case SSC -> {
        log.info("PEP {} finished synchronizing client type {}", pepId(), hex(m.clientType()));
        link.audit("synchronized", pepId(), "clientType", m.clientType());
      }
      // DEC, CAT, SSQ travel from PDP to PEP only.
      default ->
          link.protocolError(
              m.clientType(), ErrorCode.BAD_MESSAGE_FORMAT, 0, m.opCode() + " sent by a PEP");
    }
  }

  /** A Client-Open the admission let through: redirect, refuse the type, or accept it. */
  private void open(ClientOpen o) {
    int type = o.clientType();
    String id = o.pepId().id();
    if (o.lastPdpAddress() != null) {
      log.info(
          "PEP {} was last connected to PDP {}:{}",
          id,
          o.lastPdpAddress().address().getHostAddress(),
          o.lastPdpAddress().port());
    }
    InetSocketAddress r = server.redirectFor(id, type);
    if (r != null) {
      String to = r.getAddress().getHostAddress() + ":" + r.getPort();
      log.info("redirecting PEP {} client type {} to {}", id, hex(type), to);
      link.audit("redirected", id, "clientType", type, "to", to);
      link.closeWith(
          new ClientClose(
              type,
              false,
              new ErrorObject(ErrorCode.REDIRECT_TO_PREFERRED_SERVER),
              new PdpAddress(false, r.getAddress(), r.getPort()),
              null));
      return;
    }
    boolean enrolment = type == Enrolment.CLIENT_TYPE && server.enrols();
    boolean tunnels = type == TunnelRequest.CLIENT_TYPE && server.grantsTunnels();
    PepAdmission.Identity who = PepAdmission.identityOf(link.channel);
    if (tunnels && who.handshake() == null) {
      // its decisions carry keys: never over plain COPS, whatever the PEP's level says
      link.refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "the tunnel client type carries keys and is open over TLS only");
      return;
    }
    if (!enrolment && !tunnels && server.engine(type) == null) {
      server
          .refusals()
          .warn(
              "unsupported client type",
              "PEP {} asked for unsupported client type {}",
              id,
              hex(type));
      link.audit("refused", id, "clientType", type, "reason", "unsupported client-type");
      link.channel.writeAndFlush(ClientClose.of(type, ErrorCode.UNSUPPORTED_CLIENT_TYPE, 0));
      if (sessions.isEmpty()) {
        link.channel.close();
      }
      return;
    }
    if (sessions.isOpen(type)) {
      link.protocolError(
          type, ErrorCode.BAD_MESSAGE_FORMAT, 0, "second Client-Open for client type " + hex(type));
      return;
    }
    sessions.open(type);
    ConnectionLimits c = server.limits();
    AcctTimer acct =
        c.accounting().isZero() ? null : new AcctTimer((int) c.accounting().getSeconds());
    link.time(PdpTimings.Phase.OPEN_TO_ACCEPT, who.openArrived());
    link.channel.write(
        new ClientAccept(type, true, new KaTimer((int) c.keepAlive().getSeconds()), acct, null));
    log.info("PEP {} ({}) opened client type {}", id, link.peer, hex(type));
    link.audit(
        "opened",
        id,
        "clientType",
        type,
        "acceptToOpenNanos",
        who.openedAt() - link.acceptedAt,
        "openNanos",
        server.nanoTime() - who.openArrived());
    if (o.lastPdpAddress() != null && !server.isSelf(o.lastPdpAddress())) {
      // The PEP comes from another PDP (failover, redirect): this one holds none of its
      // request state, so ask for it (RFC 2748 sections 2.2.14 and 3.5).
      log.info(
          "PEP {} last used another PDP: asking it to synchronize client type {}", id, hex(type));
      link.channel.write(new SyncStateRequest(type, false, null, null));
    }
  }

  /** A request state a handler before this one decided (the tunnel desk's): installed here. */
  private void install(Sessions.Install i) {
    Map<Handle, Installed> s = sessions.of(i.clientType());
    if (s != null) {
      s.put(i.handle(), new Installed(null, i.context(), null));
    }
  }

  /** The open client type's request state, or null after a protocol error saying it is not open. */
  private Map<Handle, Installed> session(CopsMessage m) {
    Map<Handle, Installed> s = sessions.of(m.clientType());
    if (s == null) {
      link.protocolError(
          m.clientType(),
          ErrorCode.UNSUPPORTED_CLIENT_TYPE,
          0,
          m.opCode() + " for client type " + hex(m.clientType()) + " before its Client-Open");
    }
    return s;
  }

  /** A REQ: new or updated request state, decided by the client type's engine (RFC 2748 3.1). */
  private void request(Request r) {
    Map<Handle, Installed> s = session(r);
    if (s != null) {
      decisions.request(r, s);
    }
  }

  private void report(Report r) {
    Map<Handle, Installed> s = session(r);
    if (s == null) {
      return;
    }
    server.counters().report();
    boolean known = s.containsKey(r.handle());
    if (known && r.reportType().reportType() == ReportType.ACCOUNTING) {
      // counters an Accounting timer asks for, every interval: counted, not one audit record each
      // (a tunnel's last, at its end, is audited as tunnel-down by the desk)
      return;
    }
    link.audit(
        "report",
        pepId(),
        "clientType",
        r.clientType(),
        "handle",
        r.handle().value().toHex(),
        "type",
        r.reportType().reportType() == null
            ? String.valueOf(r.reportType().type())
            : r.reportType().reportType().name(),
        "knownHandle",
        known);
    if (!known) {
      server
          .refusals()
          .warn(
              "report on unknown handle",
              "PEP {} reported on unknown handle {}",
              pepId(),
              r.handle());
    }
  }

  private void delete(DeleteRequest d) {
    Map<Handle, Installed> s = session(d);
    if (s == null) {
      return;
    }
    decisions.deleted(d.clientType(), d.handle());
    Installed i = s.remove(d.handle());
    PolicyEngine engine = server.engine(d.clientType());
    if (i != null && engine != null) {
      engine.released(i.request());
    }
    link.audit(
        "deleted",
        pepId(),
        "clientType",
        d.clientType(),
        "handle",
        d.handle().value().toHex(),
        "reason",
        d.reason().code());
  }

  private void clientClose(ClientClose c) {
    Map<Handle, Installed> s = sessions.close(c.clientType());
    decisions.closed(c.clientType());
    if (s != null) {
      release(c.clientType(), s);
    }
    log.info(
        "PEP {} closed client type {}: {} (error {})",
        pepId(),
        hex(c.clientType()),
        c.error().errorCode() == null ? "an unknown error" : c.error().errorCode().description(),
        c.error().code());
    link.audit("closed", pepId(), "clientType", c.clientType(), "error", c.error().code());
    if (sessions.isEmpty()) {
      link.channel.close();
    }
  }

  private void release(int type, Map<Handle, Installed> s) {
    PolicyEngine e = server.engine(type);
    if (e != null) {
      for (Installed i : s.values()) {
        e.released(i.request());
      }
    }
  }

  // ---- pushes -----------------------------------------------------------------------------------

  /**
   * Decides every installed request of {@code type} again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  @Override
  public void reevaluate(int type, PolicyEngine engine) {
    decisions.reevaluate(type, engine, r -> true);
  }

  /**
   * As {@link #reevaluate(int, PolicyEngine)}, for the installed requests {@code which} selects.
   */
  @Override
  public void reevaluate(int type, PolicyEngine engine, Predicate<PolicyRequest> which) {
    decisions.reevaluate(type, engine, which);
  }

  /** Asks the PEP to resend its request state for {@code type} (SSQ). */
  @Override
  public void synchronize(int type) {
    if (sessions.isOpen(type)) {
      link.channel.writeAndFlush(new SyncStateRequest(type, false, null, null));
    }
  }
}
