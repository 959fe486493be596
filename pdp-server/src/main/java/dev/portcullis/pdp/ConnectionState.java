package dev.portcullis.pdp;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.OpCode;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyRequest;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What one PEP connection's handlers share: who the PEP is, where it stands with TLS, the request
 * state of its open client types, and the ways the PDP ends the connection (each one counted,
 * logged and audited). Used on the connection's event loop only, so it needs no locks.
 */
final class ConnectionState {
  /** Request state the PDP holds for one handle. */
  record Installed(PolicyRequest request, Context context, PolicyDecision decision) {}

  /** Where the connection stands with RFC 4261. */
  enum Tls {
    PLAIN,
    /** Client-Accept with Integrity-TLS sent; the PEP's next bytes must be a TLS handshake. */
    OFFERED,
    ESTABLISHED
  }

  final PdpContext server;
  final Channel channel;

  /** The PEP's address and port, for logs and audit. */
  final String peer;

  /** When the connection was accepted (the context's clock). */
  final long acceptedAt;

  /** The PEPID of the first Client-Open of a non-zero client type; null before. */
  String pepId;

  /** The PEPID of a client-type 0 Client-Open (RFC 4261), before any other. */
  String claimedId;

  /** When the first Client-Open arrived. */
  long openedAt;

  /** When the Client-Open being handled arrived. */
  long openArrived;

  Tls tls = Tls.PLAIN;
  CopsTls.Handshake handshake;

  /** Set once the PDP has decided to close: later messages are ignored. */
  boolean closing;

  /**
   * The open client types, each with its installed requests in arrival order (keyed by the int
   * client type: no boxing per request).
   */
  final IntObjectMap<Map<Handle, Installed>> sessions = new IntObjectHashMap<>();

  ConnectionState(PdpContext server, Channel channel) {
    this.server = server;
    this.channel = channel;
    this.acceptedAt = server.nanoTime();
    if (channel.remoteAddress() instanceof InetSocketAddress a) {
      this.peer = a.getAddress().getHostAddress() + ":" + a.getPort();
    } else {
      this.peer = String.valueOf(channel.remoteAddress());
    }
  }

  /** The PEP's id, or the one it claimed when asking for TLS, or "?". */
  String who() {
    return pepId != null ? pepId : claimedId != null ? claimedId : "?";
  }

  void audit(String event, String pep, Object... kv) {
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

  /** Records how long a phase took, when timings are kept. */
  void time(PdpTimings.Phase p, long since) {
    PdpTimings t = server.timings();
    if (t != null) {
      t.record(p, server.nanoTime() - since);
    }
  }

  /** Refuses a PEP for security: Client-Close with the error, an audit record, the close. */
  void refuse(String id, int type, ErrorCode code, int sub, String why) {
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

  /** Ends the connection for a protocol violation (RFC 2748 section 2.2.8's error codes). */
  void protocolError(int type, ErrorCode code, int sub, String what) {
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

  /** Answers a malformed message (RFC 2748 sections 2.2.8 and 3.2) and ends the connection. */
  void malformed(CopsCodecException e) {
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

  /** Sends {@code cc} and closes once it is written. */
  void closeWith(ClientClose cc) {
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

  /** Sends every open client type to {@code to} with a PDP-Redirect Client-Close, then closes. */
  void redirectAll(InetAddress address, int port) {
    closing = true;
    for (int type : sessions.keySet()) {
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
}
