package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.TunnelReport;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.Sessions;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * A connection's way to the {@link TunnelDesk} (client type 0xC0A8, docs/tunnels.md), once the PEP
 * has that type open: requests are decoded here and decided there; reports, deletes, the type's
 * Client-Close and the connection's end are told to the desk and then go on to the state machine,
 * which audits and answers them as for any client type.
 */
public final class TunnelHandler extends ChannelInboundHandlerAdapter {
  private static final int TYPE = TunnelRequest.CLIENT_TYPE;

  private final PepLink link;
  private final TunnelDesk desk;

  public TunnelHandler(PepLink link, TunnelDesk desk) {
    this.link = link;
    this.desk = desk;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!link.open().isOpen(TYPE) || !(msg instanceof dev.portcullis.cops.CopsMessage m)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (m.clientType() != TYPE) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (m instanceof Request r) {
      request(ctx, r);
      return; // answered by the desk
    }
    if (m instanceof Report r && r.clientSI() != null) {
      try {
        desk.report(link, r.handle(), TunnelReport.decode(r.clientSI().data()));
      } catch (CopsCodecException e) {
        link.audit("tunnel-report-unreadable", link.pepId(), "detail", e.getMessage());
        link.server
            .refusals()
            .warn(
                "unreadable tunnel reports",
                "PEP {}: tunnel report unreadable: {}",
                link.pepId(),
                e.getMessage());
      }
    } else if (m instanceof DeleteRequest d) {
      desk.released(link, d.handle());
    } else if (m instanceof ClientClose) {
      desk.gone(link);
    }
    ctx.fireChannelRead(msg);
  }

  private void request(ChannelHandlerContext ctx, Request r) {
    TunnelRequest tr;
    try {
      tr = TunnelRequest.decode(r.signaledData("the tunnel request"));
    } catch (CopsCodecException e) {
      link.server
          .refusals()
          .warn(
              "malformed tunnel requests",
              "PEP {}: tunnel request {} refused: {}",
              link.pepId(),
              r.handle(),
              e.getMessage());
      link.audit("tunnel-refused", link.pepId(), "reason", e.getMessage());
      link.channel.writeAndFlush(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return;
    }
    // Request state like any other type's, so reports and deletes on it are known handles: the
    // state machine, which owns the request states, installs it
    ctx.fireChannelRead(new Sessions.Install(TYPE, r.handle(), r.context()));
    desk.request(link, r.handle(), r.context(), tr);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (link.open().isOpen(TYPE)) {
      desk.gone(link);
    }
    ctx.fireChannelInactive();
  }
}
