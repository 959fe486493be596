package dev.portcullis.pep;

import static dev.portcullis.pep.PepState.handle;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.SyncStateComplete;
import dev.portcullis.cops.SyncStateRequest;
import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.support.HostPort;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PEP side of RFC 2748 (and RFC 4261) on one connection, speaking COPS messages: the TLS
 * negotiation the PDP starts with its Client-Accept, the acceptance checks (TLS, Integrity), the
 * decisions for waiting and installed requests, Client-Close and redirects, synchronize requests,
 * and why a connection ended. Where a connection leads next is its {@link Links}' business.
 */
final class PepConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(PepConnectionHandler.class);

  /** What the handler asks of whoever made the connection. */
  interface Links {
    /** Sends the Client-Open of the PEP's client type on {@code ch}. */
    void sendOpen(Channel ch);

    /** Connects to the policy's target now (after a redirect). */
    void connect();

    /** The connection is gone: reconnect after the back-off, unless the PEP is closing. */
    void lost(PepException why);
  }

  private final PepState state;
  private final TlsSessionReuse tls;
  private final Links links;
  private final IntegritySession integrity;

  /**
   * @param tls the TLS context and reuse policy, or null when the PEP has no TLS
   * @param integrity the connection's Integrity session, or null
   */
  PepConnectionHandler(
      PepState state, TlsSessionReuse tls, Links links, IntegritySession integrity) {
    this.state = state;
    this.tls = tls;
    this.links = links;
    this.integrity = integrity;
  }

  /** The PDP as people read it: {@code 127.0.0.1:3288}, {@code [::1]:3288}. */
  private String target() {
    return HostPort.of(state.route.target());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof CopsDecodeFailure f) {
      CopsCodecException e = f.cause();
      log.warn("PEP {}: malformed message from PDP {}: {}", state.pepId, target(), e.getMessage());
      ctx.writeAndFlush(
          new ClientClose(Math.max(0, e.clientType()), false, e.errorObject(), null, null));
      ctx.close();
      return;
    }
    CopsMessage m = (CopsMessage) msg;
    switch (m.opCode()) {
      case CAT -> clientAccept(ctx, (ClientAccept) m);
      case DEC -> decision((Decision) m);
      case CC -> clientClose(ctx, (ClientClose) m);
      case SSQ -> synchronize(ctx, (SyncStateRequest) m);
      case KA -> {} // the keep-alive watch has seen it: that is all a KA is for
      default -> {
        log.warn("PEP {}: unexpected {} from PDP; closing", state.pepId, m.opCode());
        ctx.writeAndFlush(ClientClose.of(m.clientType(), ErrorCode.BAD_MESSAGE_FORMAT, 0));
        ctx.close();
      }
    }
  }

  // ---- opening ----------------------------------------------------------------------------------

  private void clientAccept(ChannelHandlerContext ctx, ClientAccept a) {
    if (a.integrity() instanceof IntegrityTls) {
      startTls(ctx);
    } else if (state.tls() && !state.tlsUp) {
      // RFC 4261 section 5.1: a PEP requiring TLS closes if the PDP does not agree.
      refuse(
          ctx,
          ClientClose.of(0, ErrorCode.AUTHENTICATION_REQUIRED, ErrorCode.SUB_CODE_TLS_REQUIRED),
          "PDP " + target() + " accepted without agreeing to TLS; this PEP requires TLS");
    } else if (integrity != null && !integrity.peerSigns()) {
      refuse(
          ctx,
          ClientClose.of(
              state.clientType,
              ErrorCode.AUTHENTICATION_REQUIRED,
              ErrorCode.SUB_CODE_INTEGRITY_REQUIRED),
          "PDP " + target() + " answered without the Integrity object this PEP requires");
    } else {
      accepted(ctx, a);
    }
  }

  /** RFC 4261: the PDP's Client-Accept with Integrity-TLS says "start the handshake now". */
  private void startTls(ChannelHandlerContext ctx) {
    if (tls == null) {
      closeAndFail(
          ctx,
          ClientClose.of(0, ErrorCode.UNKNOWN_OBJECT, ErrorCode.SUB_CODE_TLS_REQUIRED),
          new PepException(
              ErrorCode.AUTHENTICATION_REQUIRED.code(),
              ErrorCode.SUB_CODE_TLS_REQUIRED,
              "PDP " + target() + " requires TLS (RFC 4261) and this PEP has no TLS configured"));
      return;
    }
    if (state.tlsUp || ctx.pipeline().get(SslHandler.class) != null) {
      refuse(
          ctx,
          ClientClose.of(0, ErrorCode.BAD_MESSAGE_FORMAT, 0),
          "PDP asked for TLS a second time");
      return;
    }
    ctx.pipeline().addFirst("tls", tls.clientHandler(ctx.alloc(), state.route.target()));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      handshakeDone(ctx, e);
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  private void handshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent e) {
    if (!e.isSuccess()) {
      fail(
          ctx,
          new PepException(
              ErrorCode.AUTHENTICATION_FAILURE.code(),
              0,
              "TLS handshake with PDP "
                  + target()
                  + " failed: "
                  + CopsTls.failureReason(e.cause())));
      return;
    }
    CopsTls.Handshake h = tls.established(ctx.pipeline().get(SslHandler.class));
    List<String> names = h.peer() == null ? List.of() : CopsTls.subjectAltNames(h.peer());
    List<String> authorised = state.security.authorisedPdps();
    if (!authorised.isEmpty() && Collections.disjoint(names, authorised)) {
      closeAndFail(
          ctx,
          ClientClose.of(0, ErrorCode.AUTHENTICATION_FAILURE, 0),
          new PepException(
              ErrorCode.AUTHENTICATION_FAILURE.code(),
              0,
              "PDP "
                  + target()
                  + " is not an authorised PDP: its certificate names "
                  + names
                  + ", authorised are "
                  + authorised));
      return;
    }
    state.tlsUp = true;
    log.info(
        "PEP {}: TLS with {} established, {} {}, {} handshake",
        state.pepId,
        target(),
        h.protocol(),
        h.cipherSuite(),
        h.kind());
    state.listener.tlsEstablished(h);
    links.sendOpen(ctx.channel());
  }

  private void accepted(ChannelHandlerContext ctx, ClientAccept a) {
    state.accepted = true;
    state.route.accepted();
    state.lastPdp = (InetSocketAddress) ctx.channel().remoteAddress();
    int ka = a.kaTimer().seconds();
    state.accountingSeconds = a.acctTimer() == null ? 0 : a.acctTimer().seconds();
    log.info(
        "PEP {}: client type 0x{} accepted by {} (keep-alive {} s)",
        state.pepId,
        Integer.toHexString(state.clientType),
        state.lastPdp,
        ka);
    state.listener.opened(state.lastPdp, ka);
    // After a reconnect the PDP holds none of our state: send it again.
    state.resend(ctx, null, false);
    ctx.flush();
    if (state.opening != null) {
      state.opening.complete(null);
      state.opening = null;
    }
  }

  /** Refuses the PDP for security: {@code cc}, then the attempt to open ends. */
  private void refuse(ChannelHandlerContext ctx, ClientClose cc, String why) {
    ErrorObject e = cc.error();
    closeAndFail(ctx, cc, new PepException(e.code(), e.subCode(), why));
  }

  /** Sends {@code cc}, then ends the attempt to open (or the connection) with {@code e}. */
  private void closeAndFail(ChannelHandlerContext ctx, ClientClose cc, PepException e) {
    ctx.writeAndFlush(cc);
    fail(ctx, e);
  }

  /** Ends the attempt to open (or the connection) with {@code e}. */
  private void fail(ChannelHandlerContext ctx, PepException e) {
    log.warn("PEP {}: {}", state.pepId, e.getMessage());
    state.accepted = false;
    state.failOpening(e);
    ctx.channel().close();
  }

  // ---- decisions --------------------------------------------------------------------------------

  /**
   * A DEC: it answers the caller waiting on its handle, if any, and updates the installed state;
   * every change of an installed decision then reaches the listener, however the DEC arrived:
   * pushed by the PDP (unsolicited), or the answer to a request this PEP sent again with nobody
   * waiting (after a reconnect, a fail-over to another PDP, or a synchronize request). A PDP that
   * decided differently while this PEP was away is acted on like one that changed its mind.
   */
  private void decision(Decision d) {
    String h = handle(d.handle());
    PepState.Pending p = d.solicited() ? state.pending.remove(h) : null;
    if (p != null) {
      p.timeout().cancel(false);
    }
    if (d.error() != null) {
      PepState.Installed was = state.installed.remove(h);
      PepException e =
          new PepException(
              d.error().code(),
              d.error().subCode(),
              "PDP refused request "
                  + h
                  + ": error "
                  + d.error().code()
                  + (d.error().errorCode() == null
                      ? ""
                      : " (" + d.error().errorCode().description() + ")"));
      if (p != null) {
        p.future().completeExceptionally(e);
      } else if (was != null && was.decision() != null && was.decision().granted()) {
        // The PDP no longer holds a request this PEP had installed: nothing is granted under it.
        log.info(
            "PEP {}: installed request {} dropped by the PDP: {}", state.pepId, h, e.getMessage());
        state.listener.decisionChanged(
            h, new PepDecision(false, AccessDecision.EMPTY, d.solicited(), null));
      }
      return;
    }
    PepDecision pd = decoded(h, d);
    PepState.Installed i = state.installed.get(h);
    if (i != null) {
      state.installed.put(h, new PepState.Installed(i.context(), i.request(), pd));
    }
    if (p != null) {
      p.future().complete(pd);
    } else if (!d.solicited() || (i != null && changed(i.decision(), pd))) {
      state.listener.decisionChanged(h, pd);
    }
  }

  private PepDecision decoded(String h, Decision d) {
    DecisionSet set = d.decisions().get(0);
    boolean granted = set.flags().command() == DecisionCommand.INSTALL.code();
    AccessDecision data = AccessDecision.EMPTY;
    // Types with formats of their own (enrolment, tunnels) are read by their callers from
    // clientData.
    if (set.clientSpecific() != null && AccessDecision.carriedBy(state.clientType)) {
      try {
        data = AccessDecision.decode(set.clientSpecific().data());
      } catch (CopsCodecException e) {
        log.warn("PEP {}: decision data for {} unreadable: {}", state.pepId, h, e.getMessage());
      }
    }
    return new PepDecision(
        granted,
        data,
        d.solicited(),
        set.clientSpecific() == null ? null : set.clientSpecific().data());
  }

  /** Whether {@code now} says something else than {@code before}: the command or its data. */
  private static boolean changed(PepDecision before, PepDecision now) {
    return before == null
        || before.granted() != now.granted()
        || !Objects.equals(before.clientData(), now.clientData());
  }

  private void synchronize(ChannelHandlerContext ctx, SyncStateRequest s) {
    state.resend(ctx, s.handle(), true);
    ctx.writeAndFlush(new SyncStateComplete(state.clientType, true, s.handle(), null));
  }

  // ---- endings ----------------------------------------------------------------------------------

  private void clientClose(ChannelHandlerContext ctx, ClientClose c) {
    ErrorObject err = c.error();
    boolean was = state.accepted; // the connection's end below no longer sees it accepted
    state.accepted = false;
    if (err.code() == ErrorCode.REDIRECT_TO_PREFERRED_SERVER.code()
        && c.redirect() != null
        && state.route.redirect(
            new InetSocketAddress(c.redirect().address(), c.redirect().port()))) {
      log.info("PEP {}: redirected to {}", state.pepId, target());
      state.channel = null; // so closing the old connection does not count as losing the PDP
      ctx.channel().close();
      state.loop.execute(links::connect);
      return;
    }
    PepException why =
        new PepException(
            err.code(),
            err.subCode(),
            "PDP "
                + target()
                + " closed client type 0x"
                + Integer.toHexString(c.clientType())
                + ": error "
                + err.code()
                + (err.errorCode() == null ? "" : " (" + err.errorCode().description() + ")")
                + subCodeMeaning(err.code(), err.subCode()));
    state.failOpening(why);
    if (was) {
      // An accepted connection the PDP closes (shutting down, say) is a PDP lost, as one that
      // drops: the listener hears it with the PDP's reason (fail closed, reconnect).
      state.listener.disconnected(why);
    }
    ctx.channel().close();
  }

  /** What the security sub-codes of RFC 4261 (and Portcullis's Integrity one) ask of a PEP. */
  static String subCodeMeaning(int code, int sub) {
    if (code == ErrorCode.AUTHENTICATION_REQUIRED.code()
        && sub == ErrorCode.SUB_CODE_TLS_REQUIRED) {
      return ", sub-code 0x1002: the PDP requires TLS (RFC 4261); configure <tls>";
    }
    if (code == ErrorCode.AUTHENTICATION_REQUIRED.code()
        && sub == ErrorCode.SUB_CODE_INTEGRITY_REQUIRED) {
      return ", sub-code 0x1001: the PDP requires the Integrity object; configure <integrity>";
    }
    if (code == ErrorCode.UNKNOWN_OBJECT.code() && sub == ErrorCode.SUB_CODE_TLS_REQUIRED) {
      return ", sub-code 0x1002: the PDP does not speak TLS";
    }
    return sub == 0 ? "" : ", sub-code 0x" + Integer.toHexString(sub);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (ctx.channel() != state.channel) {
      return; // an old connection closing after a redirect
    }
    boolean was = state.accepted;
    state.accepted = false;
    PepException e =
        new PepException(
            ErrorCode.COMMUNICATION_FAILURE.code(), 0, "connection to " + target() + " lost");
    state.failAll(e);
    if (state.opening != null && !was) {
      state.failOpening(closedWhileOpening());
      return;
    }
    if (was) {
      state.listener.disconnected(e);
    }
    if (state.opening == null) {
      links.lost(e);
    }
  }

  /**
   * Why the PDP closed before accepting: a TLS 1.3 PDP checks the PEP's certificate after the PEP's
   * side of the handshake is done, so its refusal arrives as an alert before any COPS message (some
   * engines send it as internal_error); say so rather than let the caller time out.
   */
  private PepException closedWhileOpening() {
    Throwable last = state.lastError;
    String why = last == null ? null : CopsTls.failureReason(last);
    if (why != null && state.tlsUp && !why.startsWith("certificate refused")) {
      why =
          "certificate refused by the PDP, most likely: it ended TLS right after the"
              + " handshake, before any COPS message ("
              + why
              + "); is this PEP's certificate issued by a CA the PDP trusts?";
    }
    return new PepException(
        last == null
            ? ErrorCode.COMMUNICATION_FAILURE.code()
            : ErrorCode.AUTHENTICATION_FAILURE.code(),
        0,
        "PDP "
            + target()
            + " closed the connection before accepting this PEP"
            + (why == null ? "" : ": " + why));
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("PEP {}: connection error: {}", state.pepId, cause.toString());
    state.lastError = cause;
    ctx.close();
  }
}
