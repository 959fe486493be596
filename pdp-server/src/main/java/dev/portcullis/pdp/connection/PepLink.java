package dev.portcullis.pdp.connection;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.OpCode;
import dev.portcullis.cops.PdpAddress;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * What every handler of one PEP connection may know of it and do with it: who the PEP is (as {@link
 * PepAdmission} published it), which client types are open (as the {@code PdpStateMachine}'s {@link
 * Sessions} say), audit records and timings, and the ways the PDP ends the connection (each
 * counted, logged and audited). It holds no state of its own: identity is the admission's, the open
 * types the machine's, and "closing" is the pipeline's — ending the connection puts a handler right
 * after the read rate's backlog that drops whatever the PEP sent, so no handler after it checks a
 * flag on the way in. Immutable; its methods are called on the connection's event loop (the tunnel
 * desk's audit records and reads of who the PEP is excepted: those are safe from any thread).
 */
public final class PepLink {
  /** The name of the handler that drops what a PEP sends once the PDP has decided to close. */
  public static final String CLOSED = "closed";

  /** The name of the read rate's handler, which holds messages back ({@link ReadRateLimiter}). */
  public static final String RATE = "rate";

  /** What one handler may ask of another's request states: read only. */
  public interface OpenTypes {
    boolean isOpen(int type);

    /** Request states held for {@code type} (0 if it is not open). */
    int held(int type);

    boolean holds(int type, Handle h);

    /** The open client types. */
    int[] types();

    boolean isEmpty();
  }

  public final PdpContext server;
  public final Channel channel;

  /** The PEP's address and port, for logs and audit. */
  public final String peer;

  /** When the connection was accepted (the context's clock). */
  public final long acceptedAt;

  /** When the connection was accepted, as an operator reads it (the context's clock). */
  public final java.time.Instant acceptedWhen;

  private final OpenTypes open;

  public PepLink(PdpContext server, Channel channel, OpenTypes open) {
    this.server = server;
    this.channel = channel;
    this.open = open;
    this.acceptedAt = server.nanoTime();
    this.acceptedWhen = server.clock().instant();
    if (channel.remoteAddress() instanceof InetSocketAddress a) {
      this.peer = a.getAddress().getHostAddress() + ":" + a.getPort();
    } else {
      this.peer = String.valueOf(channel.remoteAddress());
    }
  }

  public OpenTypes open() {
    return open;
  }

  /** The PEPID of the first Client-Open of a non-zero client type; null before. */
  public String pepId() {
    PepAdmission.Identity i = PepAdmission.identityOf(channel);
    return i == null ? null : i.pepId();
  }

  /** The PEP's id, or the one it claimed when asking for TLS, or "?". */
  public String who() {
    PepAdmission.Identity i = PepAdmission.identityOf(channel);
    return i == null ? "?" : i.who();
  }

  /** The serial number (hex) of the PEP's TLS client certificate; null without one. */
  public String certificateSerial() {
    PepAdmission.Identity i = PepAdmission.identityOf(channel);
    var h = i == null ? null : i.handshake();
    return h == null || h.peer() == null ? null : h.peer().getSerialNumber().toString(16);
  }

  /** The subject of the PEP's TLS client certificate; null without one. */
  public String tlsIdentity() {
    PepAdmission.Identity i = PepAdmission.identityOf(channel);
    var h = i == null ? null : i.handshake();
    return h == null || h.peer() == null
        ? null
        : h.peer()
            .getSubjectX500Principal()
            .getName(javax.security.auth.x500.X500Principal.RFC2253);
  }

  /** True once the PDP has decided to end the connection: nothing more is read from the PEP. */
  public boolean closing() {
    return !channel.isActive() || channel.pipeline().get(CLOSED) != null;
  }

  public void audit(String event, String pep, Object... kv) {
    PepAdmission.Identity i = PepAdmission.identityOf(channel);
    var h = i == null ? null : i.handshake();
    server
        .audit()
        .recordConnection(
            event, pep, peer, h == null ? null : h.sessionId(), h == null ? null : h.kind(), kv);
  }

  /** Records how long a phase took, when timings are kept. */
  public void time(PdpTimings.Phase p, long since) {
    PdpTimings t = server.timings();
    if (t != null) {
      t.record(p, server.nanoTime() - since);
    }
  }

  /** Refuses a PEP for security: Client-Close with the error, an audit record, the close. */
  public void refuse(String id, int type, ErrorCode code, int sub, String why) {
    server.counters().securityRefusal();
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

  /** Ends the connection for a protocol violation (RFC 2748 section 2.2.8's error codes). */
  public void protocolError(int type, ErrorCode code, int sub, String what) {
    String pepId = pepId();
    server.counters().protocolError();
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

  /** Answers a malformed message (RFC 2748 sections 2.2.8 and 3.2) and ends the connection. */
  public void malformed(CopsCodecException e) {
    String pepId = pepId();
    server.counters().protocolError();
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
    if (e.opCode() == OpCode.REQ && e.handle() != null && open.isOpen(type)) {
      // RFC 2748 3.2: a malformed request gets a DEC with the Error; the stream cannot be
      // trusted after it, so the connection ends too.
      channel.write(Decision.error(type, e.handle(), e.errorObject()));
    }
    closeWith(new ClientClose(type, false, e.errorObject(), null, null));
  }

  /** Sends {@code cc} and closes once it is written. */
  public void closeWith(ClientClose cc) {
    stopReading();
    channel.writeAndFlush(cc).addListener(ChannelFutureListener.CLOSE);
  }

  /** Sends a Client-Close for every open client type (or type 0 if none), then closes. */
  public void closeAll(ErrorCode code) {
    stopReading();
    if (open.isEmpty()) {
      channel.write(ClientClose.of(0, code, 0));
    }
    for (int type : open.types()) {
      channel.write(ClientClose.of(type, code, 0));
    }
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** Sends every open client type to {@code to} with a PDP-Redirect Client-Close, then closes. */
  public void redirectAll(InetAddress address, int port) {
    stopReading();
    for (int type : open.types()) {
      channel.write(
          new ClientClose(
              type,
              false,
              new ErrorObject(ErrorCode.REDIRECT_TO_PREFERRED_SERVER),
              new PdpAddress(false, address, port),
              null));
    }
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** Closes without a word (a TLS handshake that failed): nothing more is read either. */
  public void drop() {
    stopReading();
    channel.close();
  }

  /**
   * From now on nothing the PEP sent is acted on: dropped right after the last handler that can
   * hold messages back (the read rate's backlog, {@code rate}; else the decoder). Put right after
   * the decoder, it let through what the rate limiter had held back before the decision: a REQ
   * waiting behind a protocol error got its DEC after the Client-Close (PdpStateMachineTest).
   */
  private void stopReading() {
    ChannelPipeline p = channel.pipeline();
    if (p.get(CLOSED) != null) {
      return;
    }
    String after = p.get(RATE) != null ? RATE : p.get("decoder") != null ? "decoder" : null;
    if (after != null) {
      p.addAfter(after, CLOSED, Dropped.INSTANCE);
    }
  }

  /** Drops every message the decoder reads once the PDP has decided to close. */
  @ChannelHandler.Sharable
  private static final class Dropped extends ChannelInboundHandlerAdapter {
    static final Dropped INSTANCE = new Dropped();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }
}
