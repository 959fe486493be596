package dev.portcullis.pdp.connection;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Integrity;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.KaTimer;
import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.tls.CopsTls;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides who the PEP is and whether it may open a client type: the RFC 4261 TLS negotiation (both
 * PEP- and PDP-initiated, with {@link StartTlsGate}), the PEPID against the TLS certificate, the
 * Integrity object, and the protection level the PEP's configuration requires. A Client-Open that
 * passes goes on to the state machine; one that does not is refused here.
 */
public final class PepAdmission extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(PepAdmission.class);

  /**
   * Who the PEP is, as this handler decided it: published on the channel (an attribute only this
   * class writes, replaced whole, never changed), so that the other handlers, and the tunnel desk
   * on its own thread, read it without sharing this handler's link.
   *
   * @param pepId the PEPID of the first Client-Open of a non-zero client type; null before
   * @param claimedId the PEPID of a client-type 0 Client-Open (RFC 4261), before any other
   * @param handshake the TLS handshake once established; null on plain COPS
   * @param openedAt when the first Client-Open arrived
   * @param openArrived when the Client-Open being handled arrived
   */
  public record Identity(
      String pepId,
      String claimedId,
      CopsTls.Handshake handshake,
      long openedAt,
      long openArrived) {
    /** The PEP's id, or the one it claimed when asking for TLS, or "?". */
    String who() {
      return pepId != null ? pepId : claimedId != null ? claimedId : "?";
    }
  }

  private static final AttributeKey<Identity> IDENTITY =
      AttributeKey.valueOf(PepAdmission.class, "identity");

  /** What {@code channel}'s admission has published of its PEP; null before anything. */
  public static Identity identityOf(Channel channel) {
    return channel.attr(IDENTITY).get();
  }

  /** Where the connection stands with RFC 4261. */
  private enum Tls {
    PLAIN,
    /** Client-Accept with Integrity-TLS sent; the PEP's next bytes must be a TLS handshake. */
    OFFERED,
    ESTABLISHED
  }

  private final PepLink link;
  private final IntegritySession integrity;
  private Identity identity = new Identity(null, null, null, 0, 0);
  private Tls tls = Tls.PLAIN;

  /**
   * @param integrity the connection's Integrity session, or null when the PDP has no keys
   */
  public PepAdmission(PepLink link, IntegritySession integrity) {
    this.link = link;
    this.integrity = integrity;
  }

  private void publish(Identity i) {
    identity = i;
    link.channel.attr(IDENTITY).set(i);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ClientOpen o)) {
      ctx.fireChannelRead(msg);
      return;
    }
    Identity i = identity;
    publish(
        new Identity(
            i.pepId(), i.claimedId(), i.handshake(), i.openedAt(), link.server.nanoTime()));
    if (o.clientType() == 0) {
      startTlsRequested(ctx, o);
    } else if (identified(o) && secure(ctx, o)) {
      ctx.fireChannelRead(o);
    }
  }

  /** One PEPID per connection; the first one starts the PEP's session timings. */
  private boolean identified(ClientOpen o) {
    String id = o.pepId().id();
    Identity i = identity;
    String earlier = i.pepId() != null ? i.pepId() : i.claimedId();
    if (earlier != null && !earlier.equals(id)) {
      link.protocolError(
          o.clientType(),
          ErrorCode.BAD_MESSAGE_FORMAT,
          0,
          "PEPID " + id + " after " + earlier + " on one connection");
      return false;
    }
    if (i.pepId() == null) {
      link.time(PdpTimings.Phase.ACCEPT_TO_OPEN, link.acceptedAt);
      publish(new Identity(id, i.claimedId(), i.handshake(), i.openArrived(), i.openArrived()));
    }
    return true;
  }

  /** A client-type 0 Client-Open: the PEP asks to start TLS (RFC 4261 section 5.1). */
  private void startTlsRequested(ChannelHandlerContext ctx, ClientOpen o) {
    String id = o.pepId().id();
    Identity i = identity;
    publish(new Identity(i.pepId(), id, i.handshake(), i.openedAt(), i.openArrived()));
    if (!(o.integrity() instanceof IntegrityTls t) || !t.startTls()) {
      link.protocolError(
          0,
          ErrorCode.BAD_MESSAGE_FORMAT,
          0,
          "client-type 0 Client-Open without Integrity-TLS StartTLS (RFC 4261 section 5.1)");
      return;
    }
    if (tls != Tls.PLAIN) {
      link.protocolError(
          0, ErrorCode.BAD_MESSAGE_FORMAT, 0, "a second TLS negotiation on one connection");
      return;
    }
    if (link.server.tls() == null) {
      // The answer of a PDP that does not know Integrity-TLS (RFC 2748 section 2.2.16 rules).
      link.refuse(
          id,
          0,
          ErrorCode.UNKNOWN_OBJECT,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "PEP asked for TLS; this PDP has no TLS configured");
      return;
    }
    offerTls(ctx, id, "pep");
  }

  /** Sends the Client-Accept with Integrity-TLS and waits for the PEP's TLS handshake. */
  private void offerTls(ChannelHandlerContext ctx, String id, String initiator) {
    tls = Tls.OFFERED;
    log.info("PEP {} ({}): starting TLS ({}-initiated, RFC 4261)", id, link.peer, initiator);
    link.audit("tls-negotiation", id, "initiator", initiator);
    ctx.channel()
        .writeAndFlush(
            new ClientAccept(
                0,
                true,
                new KaTimer((int) link.server.limits().keepAlive().getSeconds()),
                null,
                new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
    ctx.pipeline().addFirst("starttls", new StartTlsGate(link.server.tls()));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      handshakeDone(ctx, e);
    } else if (evt == StartTlsGate.NOT_TLS) {
      link.refuse(
          identity.pepId(),
          0,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "sent COPS where the agreed TLS handshake should start (RFC 4261)");
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  private void handshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent e) {
    PdpContext server = link.server;
    if (!e.isSuccess()) {
      server.counters().securityRefusal();
      String why = CopsTls.failureReason(e.cause());
      server
          .refusals()
          .warn(
              "TLS handshake failures",
              "PEP {} ({}): TLS handshake failed: {}",
              identity.who(),
              link.peer,
              why);
      link.audit(
          "tls-failed",
          identity.pepId() != null ? identity.pepId() : identity.claimedId(),
          "reason",
          why);
      link.drop();
      return;
    }
    CopsTls.Handshake h = server.tls().describe(ctx.pipeline().get(SslHandler.class));
    Identity i = identity;
    publish(new Identity(i.pepId(), i.claimedId(), h, i.openedAt(), i.openArrived()));
    tls = Tls.ESTABLISHED;
    server.counters().handshake(h.resumed());
    X509Certificate cert = h.peer();
    log.info(
        "PEP {} ({}): TLS established, {} {}, {} handshake{}",
        identity.who(),
        link.peer,
        h.protocol(),
        h.cipherSuite(),
        h.kind(),
        cert == null ? "" : ", certificate " + cert.getSubjectX500Principal().getName());
    link.audit(
        "tls-established",
        identity.pepId() != null ? identity.pepId() : identity.claimedId(),
        "protocol",
        h.protocol(),
        "cipherSuite",
        h.cipherSuite(),
        "peerCertificate",
        cert == null ? null : cert.getSubjectX500Principal().getName());
  }

  /**
   * Checks a Client-Open against the PEP's protection level, its TLS identity and Integrity;
   * refuses (and returns false) or arranges what the level needs.
   */
  private boolean secure(ChannelHandlerContext ctx, ClientOpen o) {
    int type = o.clientType();
    String id = o.pepId().id();
    PdpSecurity sec = link.server.security();
    boolean enrolment = type == Enrolment.CLIENT_TYPE && link.server.enrols();
    // An enrolling PEP has no Integrity key or certificate yet: TLS is all it can offer, and all
    // enrolment accepts (its secret must not travel in the clear).
    ProtectionLevel required =
        enrolment
            ? ProtectionLevel.CONFIDENTIALITY
            : sec == null ? ProtectionLevel.NONE : sec.levelFor(id);
    boolean established = tls == Tls.ESTABLISHED;
    if (!established && required.tls()) {
      if (sec.initiate()) {
        offerTls(ctx, id, "pdp"); // RFC 4261 section 5.2; the PEP opens again once TLS is up
        return false;
      }
      link.refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_REQUIRED,
          ErrorCode.SUB_CODE_TLS_REQUIRED,
          "protection level " + required.configName() + " requires TLS");
      return false;
    }
    if (established && sec.clientAuth() != ClientAuth.NONE) {
      String problem =
          identity.handshake().peer() == null
              ? enrolment
                  ? null
                  : "no client certificate: without one only enrolment (client type 0xC0A7) is open"
              : identityProblem(sec, id);
      if (problem != null) {
        link.refuse(id, type, ErrorCode.AUTHENTICATION_FAILURE, 0, problem);
        return false;
      }
    }
    if (o.integrity() instanceof Integrity && integrity == null) {
      link.refuse(
          id,
          type,
          ErrorCode.AUTHENTICATION_FAILURE,
          0,
          "Client-Open carries an Integrity object; this PDP has no Integrity keys");
      return false;
    }
    boolean integrityOn = integrity != null && integrity.peerSigns();
    if (required.integrity() && !integrityOn) {
      link.refuse(
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
    X509Certificate cert = identity.handshake().peer(); // present: secure() handled its absence
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
}
