package dev.portcullis.pdp;

import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.CopsMessage.ClientClose;
import dev.portcullis.cops.CopsMessage.ClientOpen;
import dev.portcullis.cops.CopsMessage.Decision;
import dev.portcullis.cops.CopsMessage.DecisionSet;
import dev.portcullis.cops.CopsMessage.DeleteRequest;
import dev.portcullis.cops.CopsMessage.KeepAlive;
import dev.portcullis.cops.CopsMessage.Report;
import dev.portcullis.cops.CopsMessage.Request;
import dev.portcullis.cops.CopsObject;
import dev.portcullis.cops.CopsObject.ClientSI;
import dev.portcullis.cops.CopsObject.Context;
import dev.portcullis.cops.CopsObject.DecisionFlags;
import dev.portcullis.cops.CopsObject.ErrorObject;
import dev.portcullis.cops.CopsObject.Handle;
import dev.portcullis.cops.CopsObject.IntegrityTls;
import dev.portcullis.cops.CopsObject.KaTimer;
import dev.portcullis.cops.CopsObject.PdpAddress;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.OpCode;
import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PEP connection's state machine (RFC 2748 sections 2.3 to 4): Client-Open per client type,
 * keep-alive echo and loss detection, request state per handle, reports, deletes, Client-Close both
 * ways, redirects, and the answers to malformed input. Runs on the connection's event loop only, so
 * it needs no locks; the server reaches it through {@link #execute}.
 */
final class PdpConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(PdpConnection.class);

  /** Request state the PDP holds for one handle. */
  private record Installed(PolicyRequest request, Context context, PolicyDecision decision) {}

  /** Where the connection stands with RFC 4261. */
  private enum TlsState {
    PLAIN,
    /** Client-Accept with Integrity-TLS sent; the PEP's next bytes must be a TLS handshake. */
    OFFERED,
    ESTABLISHED
  }

  private final PdpServer server;
  private final IntegritySession integrity;
  private TlsState tls = TlsState.PLAIN;
  private CopsTls.Handshake handshake;
  private String claimedId; // the PEPID of a client-type 0 Client-Open, before any other
  private final Map<Integer, Map<Handle, Installed>> sessions = new HashMap<>();
  private Channel channel;
  private String pepId;
  private String peer = "?";
  private long lastRead = System.nanoTime();
  private long acceptedAt;
  private long openedAt; // when the first Client-Open arrived
  private ScheduledFuture<?> handshakeTimer;
  private ScheduledFuture<?> keepAliveCheck;
  private double tokens;
  private final ArrayDeque<Object> backlog = new ArrayDeque<>();
  private boolean drainScheduled;
  private long tokensAt = System.nanoTime();
  private boolean closing;

  PdpConnection(PdpServer server, IntegritySession integrity) {
    this.server = server;
    this.integrity = integrity;
    this.tokens = server.config().maxMessagesPerSecond();
  }

  String pepId() {
    return pepId;
  }

  /** Runs {@code task} on this connection's event loop. */
  void execute(Runnable task) {
    Channel c = channel;
    if (c != null) {
      c.eventLoop().execute(task);
    }
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    acceptedAt = System.nanoTime();
    if (channel.remoteAddress() instanceof InetSocketAddress) {
      InetSocketAddress a = (InetSocketAddress) channel.remoteAddress();
      peer = a.getAddress().getHostAddress() + ":" + a.getPort();
    }
    if (!server.register(this)) {
      server
          .refusals()
          .warn(
              "connection limit",
              "refused connection from {}: {} connections open (limit)",
              peer,
              server.config().maxConnections());
      channel.close();
      return;
    }
    long hs = server.config().handshake().toMillis();
    handshakeTimer =
        channel
            .eventLoop()
            .schedule(
                () -> {
                  if (sessions.isEmpty()) {
                    server
                        .refusals()
                        .warn(
                            "handshake timeouts",
                            "closing {}: no client type opened within {} ms",
                            peer,
                            hs);
                    audit("dropped", null, "reason", "handshake timeout");
                    channel.close();
                  }
                },
                hs,
                TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
    }
    if (keepAliveCheck != null) {
      keepAliveCheck.cancel(false);
    }
    for (Map.Entry<Integer, Map<Handle, Installed>> s : sessions.entrySet()) {
      release(s.getKey(), s.getValue());
    }
    sessions.clear();
    server.unregister(this);
    time(PdpTimings.Phase.CONNECTION, acceptedAt);
    if (pepId != null) {
      log.info("PEP {} ({}) disconnected", pepId, peer);
      audit("disconnected", pepId, "connectionNanos", System.nanoTime() - acceptedAt);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // I/O errors (connection reset) end the connection; nothing a PEP sends gets here, the
    // decoder turns it into a CopsDecodeFailure.
    log.debug("connection {} failed: {}", peer, cause.toString());
    ctx.close();
  }

  // ---- inbound ----------------------------------------------------------------------------------

  private void time(PdpTimings.Phase p, long since) {
    PdpTimings t = server.timings();
    if (t != null) {
      t.record(p, System.nanoTime() - since);
    }
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

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    lastRead = System.nanoTime();
    if (!backlog.isEmpty() || !takeToken()) {
      // Over the rate: hold the message, stop reading, and go on when tokens have refilled.
      backlog.add(msg);
      pause();
      return;
    }
    handle(msg);
  }

  private void handle(Object msg) {
    if (msg instanceof CopsDecodeFailure) {
      malformed(((CopsDecodeFailure) msg).cause());
      return;
    }
    if (closing) {
      return;
    }
    CopsMessage m = (CopsMessage) msg;
    switch (m.opCode()) {
      case OPN:
        open((ClientOpen) m);
        break;
      case REQ:
        request((Request) m, System.nanoTime());
        break;
      case RPT:
        report((Report) m);
        break;
      case DRQ:
        delete((DeleteRequest) m);
        break;
      case KA:
        channel.write(new KeepAlive(true, null));
        break;
      case CC:
        clientClose((ClientClose) m);
        break;
      case SSC:
        log.info("PEP {} finished synchronizing client type {}", pepId, hex(m.clientType()));
        audit("synchronized", pepId, "clientType", m.clientType());
        break;
      default:
        // DEC, CAT, SSQ travel from PDP to PEP only.
        protocolError(
            m.clientType(), ErrorCode.BAD_MESSAGE_FORMAT, 0, m.opCode() + " sent by a PEP");
        break;
    }
  }

  /** Rate limit: a token bucket refilled at {@code max-messages-per-second}. */
  private boolean takeToken() {
    int rate = server.config().maxMessagesPerSecond();
    long now = System.nanoTime();
    tokens = Math.min(rate, tokens + (now - tokensAt) * (rate / 1e9));
    tokensAt = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  /** Stops reading and schedules the backlog's processing for when one token is back. */
  private void pause() {
    if (drainScheduled) {
      return;
    }
    drainScheduled = true;
    channel.config().setAutoRead(false);
    int rate = server.config().maxMessagesPerSecond();
    long waitNanos = (long) (Math.max(0, 1 - tokens) * 1e9 / rate) + 1;
    channel.eventLoop().schedule(this::drain, waitNanos, TimeUnit.NANOSECONDS);
  }

  private void drain() {
    drainScheduled = false;
    while (!backlog.isEmpty() && channel.isActive()) {
      if (!takeToken()) {
        pause();
        channel.flush();
        return;
      }
      handle(backlog.poll());
    }
    channel.flush();
    channel.config().setAutoRead(true);
  }

  private void open(ClientOpen o) {
    int type = o.clientType();
    String id = o.pepId().id();
    if (type == 0) {
      startTlsRequested(o);
      return;
    }
    String earlier = pepId != null ? pepId : claimedId;
    if (earlier != null && !earlier.equals(id)) {
      protocolError(
          type,
          ErrorCode.BAD_MESSAGE_FORMAT,
          0,
          "PEPID " + id + " after " + earlier + " on one connection");
      return;
    }
    if (pepId == null) {
      time(PdpTimings.Phase.ACCEPT_TO_OPEN, acceptedAt);
      openedAt = lastRead;
      pepId = id;
    }
    if (!secure(o)) {
      return;
    }
    if (o.lastPdpAddress() != null) {
      log.info(
          "PEP {} was last connected to PDP {}:{}",
          id,
          o.lastPdpAddress().address().getHostAddress(),
          o.lastPdpAddress().port());
    }
    PdpConfig.Redirect r = server.redirectFor(id, type);
    if (r != null) {
      log.info(
          "redirecting PEP {} client type {} to {}:{}",
          id,
          hex(type),
          r.address().getHostAddress(),
          r.port());
      audit(
          "redirected",
          id,
          "clientType",
          type,
          "to",
          r.address().getHostAddress() + ":" + r.port());
      closeWith(
          new ClientClose(
              type,
              false,
              new ErrorObject(ErrorCode.REDIRECT_TO_PREFERRED_SERVER),
              new PdpAddress(false, r.address(), r.port()),
              null));
      return;
    }
    boolean enrolment = type == Enrolment.CLIENT_TYPE && server.enrols();
    if (!enrolment && server.policy(type) == null) {
      log.warn("PEP {} asked for unsupported client type {}", id, hex(type));
      audit("refused", id, "clientType", type, "reason", "unsupported client-type");
      channel.writeAndFlush(ClientClose.of(type, ErrorCode.UNSUPPORTED_CLIENT_TYPE, 0));
      if (sessions.isEmpty()) {
        channel.close();
      }
      return;
    }
    if (sessions.containsKey(type)) {
      protocolError(
          type, ErrorCode.BAD_MESSAGE_FORMAT, 0, "second Client-Open for client type " + hex(type));
      return;
    }
    if (sessions.isEmpty()) {
      handshakeTimer.cancel(false);
      startKeepAliveCheck();
    }
    sessions.put(type, new LinkedHashMap<>());
    PdpConfig c = server.config();
    CopsObject.AcctTimer acct =
        c.accounting().isZero()
            ? null
            : new CopsObject.AcctTimer((int) c.accounting().getSeconds());
    time(PdpTimings.Phase.OPEN_TO_ACCEPT, lastRead);
    channel.write(
        new CopsMessage.ClientAccept(
            type, true, new KaTimer((int) c.keepAlive().getSeconds()), acct, null));
    log.info("PEP {} ({}) opened client type {}", id, peer, hex(type));
    audit(
        "opened",
        id,
        "clientType",
        type,
        "acceptToOpenNanos",
        openedAt - acceptedAt,
        "openNanos",
        System.nanoTime() - lastRead);
    if (o.lastPdpAddress() != null && !server.isSelf(o.lastPdpAddress())) {
      // The PEP comes from another PDP (failover, redirect): this one holds none of its
      // request state, so ask for it (RFC 2748 sections 2.2.14 and 3.5).
      log.info(
          "PEP {} last used another PDP: asking it to synchronize client type {}", id, hex(type));
      channel.write(new CopsMessage.SyncStateRequest(type, false, null, null));
    }
  }

  // ---- security (RFC 4261, RFC 2748 section 4.2, protection levels)
  // ------------------------------

  /** A client-type 0 Client-Open: the PEP asks to start TLS (RFC 4261 section 5.1). */
  private void startTlsRequested(ClientOpen o) {
    String id = o.pepId().id();
    claimedId = id;
    if (!(o.integrity() instanceof IntegrityTls) || !((IntegrityTls) o.integrity()).startTls()) {
      protocolError(
          0,
          ErrorCode.BAD_MESSAGE_FORMAT,
          0,
          "client-type 0 Client-Open without Integrity-TLS StartTLS (RFC 4261 section 5.1)");
      return;
    }
    if (tls != TlsState.PLAIN) {
      protocolError(
          0, ErrorCode.BAD_MESSAGE_FORMAT, 0, "a second TLS negotiation on one connection");
      return;
    }
    if (server.tls() == null) {
      // The answer of a PDP that does not know Integrity-TLS (RFC 2748 section 2.2.16 rules).
      refuse(
          id,
          0,
          ErrorCode.UNKNOWN_OBJECT,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "PEP asked for TLS; this PDP has no TLS configured");
      return;
    }
    offerTls(id, "pep");
  }

  /** Sends the Client-Accept with Integrity-TLS and waits for the PEP's TLS handshake. */
  private void offerTls(String id, String initiator) {
    tls = TlsState.OFFERED;
    log.info("PEP {} ({}): starting TLS ({}-initiated, RFC 4261)", id, peer, initiator);
    audit("tls-negotiation", id, "initiator", initiator);
    channel.writeAndFlush(
        new CopsMessage.ClientAccept(
            0,
            true,
            new KaTimer((int) server.config().keepAlive().getSeconds()),
            null,
            new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
    channel.pipeline().addFirst("starttls", new StartTlsGate(server.tls()));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent) {
      handshakeDone((SslHandshakeCompletionEvent) evt);
    } else if (evt == StartTlsGate.NOT_TLS) {
      refuse(
          pepId,
          0,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "sent COPS where the agreed TLS handshake should start (RFC 4261)");
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  private void handshakeDone(SslHandshakeCompletionEvent e) {
    if (!e.isSuccess()) {
      server.stats().securityRefusal();
      String why = CopsTls.failureReason(e.cause());
      server
          .refusals()
          .warn(
              "TLS handshake failures", "PEP {} ({}): TLS handshake failed: {}", who(), peer, why);
      audit("tls-failed", pepId != null ? pepId : claimedId, "reason", why);
      closing = true;
      channel.close();
      return;
    }
    SslHandler h = channel.pipeline().get(SslHandler.class);
    handshake = server.tls().describe(h);
    tls = TlsState.ESTABLISHED;
    server.stats().handshake(handshake.resumed());
    X509Certificate cert = handshake.peer();
    log.info(
        "PEP {} ({}): TLS established, {} {}, {} handshake{}",
        who(),
        peer,
        handshake.protocol(),
        handshake.cipherSuite(),
        handshake.kind(),
        cert == null ? "" : ", certificate " + cert.getSubjectX500Principal().getName());
    audit(
        "tls-established",
        pepId != null ? pepId : claimedId,
        "protocol",
        handshake.protocol(),
        "cipherSuite",
        handshake.cipherSuite(),
        "peerCertificate",
        cert == null ? null : cert.getSubjectX500Principal().getName());
  }

  /**
   * Checks a Client-Open against the PEP's protection level, its TLS identity and Integrity;
   * refuses (and returns false) or arranges what the level needs.
   */
  private boolean secure(ClientOpen o) {
    int type = o.clientType();
    String id = o.pepId().id();
    PdpSecurity sec = server.security();
    boolean enrolment = type == Enrolment.CLIENT_TYPE && server.enrols();
    // An enrolling PEP has no Integrity key or certificate yet: TLS is all it can offer, and all
    // enrolment accepts (its secret must not travel in the clear).
    ProtectionLevel required =
        enrolment
            ? ProtectionLevel.CONFIDENTIALITY
            : sec == null ? ProtectionLevel.NONE : sec.levelFor(id);
    boolean signed = o.integrity() instanceof CopsObject.Integrity;
    if (tls != TlsState.ESTABLISHED && required.tls()) {
      if (sec.initiate()) {
        offerTls(id, "pdp"); // RFC 4261 section 5.2; the PEP opens again once TLS is up
        return false;
      }
      refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "protection level " + required.configName() + " requires TLS");
      return false;
    }
    if (tls == TlsState.ESTABLISHED && sec.clientAuth() != ClientAuth.NONE) {
      String problem =
          handshake.peer() == null
              ? enrolment
                  ? null
                  : "no client certificate: without one only enrolment (client type 0xC0A7) is open"
              : identityProblem(sec, id);
      if (problem != null) {
        refuse(id, type, ErrorCode.AUTHENTICATION_FAILURE, 0, problem);
        return false;
      }
    }
    if (signed && integrity == null) {
      refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_FAILURE,
          0,
          "Client-Open carries an Integrity object; this PDP has no Integrity keys");
      return false;
    }
    boolean integrityOn = integrity != null && integrity.peerSigns();
    if (required.integrity() && !integrityOn) {
      refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_INTEGRITY_REQUIRED,
          "protection level " + required.configName() + " requires the Integrity object");
      return false;
    }
    if (integrityOn) {
      integrity.signOutgoing(true); // the Client-Accept is the PDP's first signed message
    }
    return true;
  }

  /** Null if the PEP's certificate names {@code id}; otherwise what is wrong. */
  private String identityProblem(PdpSecurity sec, String id) {
    X509Certificate cert = handshake.peer(); // present: secure() handled its absence
    List<String> names =
        sec.identityFrom() == PdpSecurity.IdentitySource.SUBJECT_CN
            ? Collections.singletonList(CopsTls.commonName(cert))
            : CopsTls.subjectAltNames(cert);
    for (String n : names) {
      if (n != null && id.equals(sec.identityMap().getOrDefault(n, n))) {
        return null;
      }
    }
    return "PEPID "
        + id
        + " does not match the certificate ("
        + sec.identityFrom().configName
        + " "
        + names
        + ")";
  }

  /** Refuses a PEP for security: Client-Close with the error, an audit record, the close. */
  private void refuse(String id, int type, ErrorCode code, int sub, String why) {
    server.stats().securityRefusal();
    server
        .refusals()
        .warn(
            "refused PEPs",
            "refused PEP {} ({}) client type {}: {} (error {}, sub-code 0x{})",
            id == null ? "?" : id,
            peer,
            hex(type),
            why,
            code.code(),
            Integer.toHexString(sub));
    audit("refused", id, "clientType", type, "error", code.code(), "subCode", sub, "reason", why);
    closeWith(ClientClose.of(type, code, sub));
  }

  /** The PEP's id, or the one it claimed when asking for TLS, or "?". */
  private String who() {
    return pepId != null ? pepId : claimedId != null ? claimedId : "?";
  }

  private void audit(String event, String pep, Object... kv) {
    server
        .audit()
        .recordConnection(
            event,
            pep,
            peer,
            handshake == null ? null : handshake.sessionId(),
            handshake == null ? null : handshake.kind(),
            kv);
  }

  private void startKeepAliveCheck() {
    long ka = server.config().keepAlive().toNanos();
    if (ka == 0) {
      return;
    }
    long every = Math.max(TimeUnit.MILLISECONDS.toNanos(100), ka / 4);
    keepAliveCheck =
        channel
            .eventLoop()
            .scheduleAtFixedRate(
                () -> {
                  if (System.nanoTime() - lastRead > ka) {
                    log.warn(
                        "PEP {} ({}) dropped: nothing received for {} s (keep-alive timer)",
                        pepId,
                        peer,
                        ka / 1_000_000_000L);
                    audit("dropped", pepId, "reason", "keep-alive timeout");
                    closeAll(ErrorCode.COMMUNICATION_FAILURE);
                  }
                },
                every,
                every,
                TimeUnit.NANOSECONDS);
  }

  private Map<Handle, Installed> session(CopsMessage m) {
    Map<Handle, Installed> s = sessions.get(m.clientType());
    if (s == null) {
      protocolError(
          m.clientType(),
          ErrorCode.UNSUPPORTED_CLIENT_TYPE,
          0,
          m.opCode() + " for client type " + hex(m.clientType()) + " before its Client-Open");
    }
    return s;
  }

  private void request(Request r, long arrived) {
    Map<Handle, Installed> s = session(r);
    if (s == null) {
      return;
    }
    int type = r.clientType();
    if (type == Enrolment.CLIENT_TYPE && server.enrols()) {
      enrol(r);
      return;
    }
    if (!s.containsKey(r.handle()) && s.size() >= server.config().maxHandles()) {
      channel.write(
          Decision.error(type, r.handle(), new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
      log.warn("PEP {}: request refused, {} handles open (limit)", pepId, s.size());
      return;
    }
    AccessRequest access;
    try {
      ClientSI si = r.clientSIs().isEmpty() ? null : r.clientSIs().get(0);
      if (si == null || si.named()) {
        throw CopsCodecException.at(
            ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING,
            0,
            0,
            "ClientSI",
            "missing",
            "a signaled ClientSI with the access request");
      }
      access = AccessRequest.decode(si.data());
    } catch (CopsCodecException e) {
      log.warn("PEP {}: request {} refused: {}", pepId, r.handle(), e.getMessage());
      channel.write(Decision.error(type, r.handle(), e.errorObject()));
      return;
    }
    ClientTypePolicy policy = server.policy(type);
    PolicyEngine engine = policy.engine();
    PolicyRequest pr =
        new PolicyRequest(pepId, type, r.context().rType(), r.context().mType(), access);
    PolicyDecision d = engine.decide(pr);
    // A REQ on an existing handle updates that request state (RFC 2748 section 3.1); the engine
    // hears of a release only when the state is deleted.
    s.put(r.handle(), new Installed(pr, r.context(), d));
    Decision dec = decision(type, true, r.handle(), r.context(), d);
    // Counted before the write, so whoever reads the counter after the PEP has its answer sees
    // it; the latency runs from the REQ's arrival to its DEC being ready to encode.
    long nanos = System.nanoTime() - arrived;
    server.stats().decision(nanos);
    PdpTimings t = server.timings();
    if (t != null) {
      t.record(PdpTimings.Phase.REQUEST_TO_DECISION, nanos);
    }
    if (server.audit().enabled()) {
      audit(
          "decision",
          pepId,
          "clientType",
          type,
          "handle",
          r.handle().value().toHex(),
          "operation",
          access.operation().name(),
          "subject",
          access.subject(),
          "service",
          access.service(),
          "decision",
          d.install() ? "install" : "remove",
          "rule",
          d.data().ruleId(),
          "reason",
          d.data().reason(),
          "latencyNanos",
          nanos);
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "PEP {} {} {} -> {} ({})",
          pepId,
          access.operation(),
          access.subject(),
          d.install() ? "install" : "remove",
          d.data().ruleId());
    }
    channel.write(dec);
  }

  /** An enrolment request: checked and answered off the event loop, then written back here. */
  private void enrol(Request r) {
    Enrolment.Request er;
    try {
      ClientSI si = r.clientSIs().isEmpty() ? null : r.clientSIs().get(0);
      if (si == null || si.named()) {
        throw CopsCodecException.at(
            ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING,
            0,
            0,
            "ClientSI",
            "missing",
            "a signaled ClientSI with the enrolment request");
      }
      er = Enrolment.Request.decode(si.data());
    } catch (CopsCodecException e) {
      log.warn("PEP {}: enrolment request {} refused: {}", pepId, r.handle(), e.getMessage());
      audit("enrolment-refused", pepId, "reason", e.getMessage());
      channel.writeAndFlush(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return;
    }
    audit("enrolment-attempt", pepId, "credential", er.credentialId());
    String id = pepId;
    server
        .enrol(id, er)
        .whenComplete(
            (outcome, failure) ->
                execute(
                    () -> {
                      if (failure != null || !channel.isActive()) {
                        log.warn(
                            "PEP {}: enrolment not answered: {}",
                            id,
                            failure == null ? "connection closed" : failure.toString());
                        return;
                      }
                      if (outcome.granted()) {
                        log.info(
                            "PEP {} enrolled with credential {}: certificate serial {}",
                            id,
                            er.credentialId(),
                            outcome.certificate().getSerialNumber().toString(16));
                        audit(
                            "enrolled",
                            id,
                            "credential",
                            er.credentialId(),
                            "serial",
                            outcome.certificate().getSerialNumber().toString(16),
                            "notAfter",
                            outcome.certificate().getNotAfter().toInstant().toString());
                      } else {
                        server.stats().securityRefusal();
                        log.warn("PEP {}: enrolment refused: {}", id, outcome.reason());
                        audit(
                            "enrolment-refused",
                            id,
                            "credential",
                            er.credentialId(),
                            "reason",
                            outcome.reason());
                      }
                      channel.writeAndFlush(
                          Decision.of(
                              r.clientType(),
                              true,
                              r.handle(),
                              new DecisionSet(
                                  r.context(),
                                  new DecisionFlags(
                                      false,
                                      outcome.granted()
                                          ? DecisionCommand.INSTALL
                                          : DecisionCommand.REMOVE),
                                  null,
                                  null,
                                  outcome.response().toDecisionData(),
                                  null)));
                    }));
  }

  static Decision decision(int type, boolean solicited, Handle h, Context ctx, PolicyDecision d) {
    DecisionFlags flags =
        new DecisionFlags(false, d.install() ? DecisionCommand.INSTALL : DecisionCommand.REMOVE);
    return Decision.of(
        type, solicited, h, new DecisionSet(ctx, flags, null, null, d.decisionData(), null));
  }

  private void report(Report r) {
    Map<Handle, Installed> s = session(r);
    if (s == null) {
      return;
    }
    server.stats().report();
    boolean known = s.containsKey(r.handle());
    audit(
        "report",
        pepId,
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
      log.warn("PEP {} reported on unknown handle {}", pepId, r.handle());
    }
  }

  private void delete(DeleteRequest d) {
    Map<Handle, Installed> s = session(d);
    if (s == null) {
      return;
    }
    Installed i = s.remove(d.handle());
    if (i != null) {
      server.policy(d.clientType()).engine().released(i.request());
    }
    audit(
        "deleted",
        pepId,
        "clientType",
        d.clientType(),
        "handle",
        d.handle().value().toHex(),
        "reason",
        d.reason().code());
  }

  private void clientClose(ClientClose c) {
    Map<Handle, Installed> s = sessions.remove(c.clientType());
    if (s != null) {
      release(c.clientType(), s);
    }
    log.info(
        "PEP {} closed client type {}: error {} ({})",
        pepId,
        hex(c.clientType()),
        c.error().code(),
        c.error().errorCode() == null ? "?" : c.error().errorCode().description());
    audit("closed", pepId, "clientType", c.clientType(), "error", c.error().code());
    if (sessions.isEmpty()) {
      channel.close();
    }
  }

  private void release(int type, Map<Handle, Installed> s) {
    ClientTypePolicy p = server.policy(type);
    if (p != null) {
      PolicyEngine e = p.engine();
      for (Installed i : s.values()) {
        e.released(i.request());
      }
    }
  }

  // ---- errors -----------------------------------------------------------------------------------

  private void malformed(CopsCodecException e) {
    server.stats().protocolError();
    int type = Math.max(0, e.clientType());
    server
        .refusals()
        .warn(
            "malformed messages",
            "PEP {} ({}) sent a malformed message: {} (error {})",
            pepId == null ? "?" : pepId,
            peer,
            e.getMessage(),
            e.error().code());
    audit("malformed", pepId, "error", e.error().code(), "detail", e.getMessage());
    if (e.opCode() == OpCode.REQ && e.handle() != null && sessions.containsKey(type)) {
      // RFC 2748 3.2: a malformed request gets a DEC with the Error; the stream cannot be
      // trusted after it, so the connection ends too.
      channel.write(Decision.error(type, e.handle(), e.errorObject()));
    }
    closeWith(new ClientClose(type, false, e.errorObject(), null, null));
  }

  private void protocolError(int type, ErrorCode code, int sub, String what) {
    server.stats().protocolError();
    server
        .refusals()
        .warn(
            "protocol errors",
            "PEP {} ({}): {}; closing (error {})",
            pepId == null ? "?" : pepId,
            peer,
            what,
            code.code());
    audit("protocol-error", pepId, "error", code.code(), "detail", what);
    closeWith(ClientClose.of(type, code, sub));
  }

  private void closeWith(ClientClose cc) {
    closing = true;
    channel.writeAndFlush(cc).addListener(ChannelFutureListener.CLOSE);
  }

  /** Sends a Client-Close for every open client type (or type 0 if none), then closes. */
  void closeAll(ErrorCode code) {
    closing = true;
    if (sessions.isEmpty()) {
      channel.write(ClientClose.of(0, code, 0));
    }
    for (int type : sessions.keySet()) {
      channel.write(ClientClose.of(type, code, 0));
    }
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  // ---- pushes -----------------------------------------------------------------------------------

  /**
   * Decides every installed request of {@code type} again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  void reevaluate(int type, PolicyEngine engine) {
    Map<Handle, Installed> s = sessions.get(type);
    if (s == null || closing) {
      return;
    }
    int pushed = 0;
    for (Map.Entry<Handle, Installed> e : s.entrySet()) {
      Installed i = e.getValue();
      PolicyDecision d = engine.reevaluate(i.request());
      if (!d.equals(i.decision())) {
        e.setValue(new Installed(i.request(), i.context(), d));
        channel.write(decision(type, false, e.getKey(), i.context(), d));
        server.stats().pushed();
        audit(
            "pushed",
            pepId,
            "clientType",
            type,
            "handle",
            e.getKey().value().toHex(),
            "decision",
            d.install() ? "install" : "remove",
            "rule",
            d.data().ruleId());
        pushed++;
      }
    }
    if (pushed > 0) {
      channel.flush();
      log.info("policy change: {} unsolicited decisions sent to PEP {}", pushed, pepId);
    }
  }

  /** Asks the PEP to resend its request state for {@code type} (SSQ). */
  void synchronize(int type) {
    if (sessions.containsKey(type)) {
      channel.writeAndFlush(new CopsMessage.SyncStateRequest(type, false, null, null));
    }
  }

  int openHandles() {
    int n = 0;
    for (Map<Handle, Installed> s : sessions.values()) {
      n += s.size();
    }
    return n;
  }

  static String hex(int clientType) {
    return String.format("0x%04X", clientType);
  }
}
