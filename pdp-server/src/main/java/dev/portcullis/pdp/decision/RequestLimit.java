package dev.portcullis.pdp.decision;

import dev.portcullis.cops.Decision;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.pdp.connection.PepLink;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The one admission of requests, for every client type (docs/security.md, principle 11): a REQ that
 * would open a new request state when the PEP holds {@code max-handles} of its client type already
 * (installed, or being decided) is answered "Unable to process" (RFC 2748 error 4) here, counted in
 * the refusals summary, and goes no further. It sits in the pipeline before every client type's
 * handler (enrolment, tunnels, the state machine's engines), so a type added later is under the
 * limit by where it is put, not by remembering to check. A hostile tester had 600 tunnel requests
 * on distinct handles all decided with {@code max-handles=200}: the tunnel handler kept its request
 * states itself, past the check the access types made for themselves.
 */
public final class RequestLimit extends ChannelInboundHandlerAdapter {
  /** How many request states of a type are being decided, and whether a handle is one of them. */
  public interface Deciding {
    int pending(int type);

    boolean isPending(int type, Handle h);
  }

  private final PepLink link;
  private final Deciding deciding;

  public RequestLimit(PepLink link, Deciding deciding) {
    this.link = link;
    this.deciding = deciding;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Request r && over(r)) {
      link.channel.writeAndFlush(
          Decision.error(
              r.clientType(), r.handle(), new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0)));
      link.server
          .refusals()
          .warn(
              "handle limit",
              "PEP {}: request refused, {} handles of client type 0x{} open (max-handles)",
              link.pepId(),
              link.server.limits().maxHandles(),
              Integer.toHexString(r.clientType()).toUpperCase(java.util.Locale.ROOT));
      return;
    }
    ctx.fireChannelRead(msg);
  }

  /** Whether {@code r} would open a request state beyond the limit (an open type only). */
  private boolean over(Request r) {
    int type = r.clientType();
    PepLink.OpenTypes open = link.open();
    if (!open.isOpen(type) || open.holds(type, r.handle())) {
      return false; // not open (the state machine says so), or an update of a held state
    }
    int held = open.held(type);
    int pending = deciding.pending(type);
    if (pending > 0) {
      if (deciding.isPending(type, r.handle())) {
        return false;
      }
      held += pending;
    }
    return held >= link.server.limits().maxHandles();
  }
}
