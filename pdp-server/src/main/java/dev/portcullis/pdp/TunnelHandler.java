package dev.portcullis.pdp;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.TunnelReport;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.ConnectionState.Installed;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Map;

/**
 * A connection's way to the {@link TunnelDesk} (client type 0xC0A8, docs/tunnels.md), once the PEP
 * has that type open: requests are decoded here and decided there; reports, deletes, the type's
 * Client-Close and the connection's end are told to the desk and then go on to the state machine,
 * which audits and answers them as for any client type.
 */
final class TunnelHandler extends ChannelInboundHandlerAdapter {
  private static final int TYPE = TunnelRequest.CLIENT_TYPE;

  private final ConnectionState state;
  private final TunnelDesk desk;

  TunnelHandler(ConnectionState state, TunnelDesk desk) {
    this.state = state;
    this.desk = desk;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Map<dev.portcullis.cops.Handle, Installed> open = state.sessions.get(TYPE);
    if (open == null || state.closing || !(msg instanceof dev.portcullis.cops.CopsMessage m)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (m.clientType() != TYPE) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (m instanceof Request r) {
      request(r, open);
      return; // answered by the desk
    }
    if (m instanceof Report r && r.clientSI() != null) {
      try {
        desk.report(state, r.handle(), TunnelReport.decode(r.clientSI().data()));
      } catch (CopsCodecException e) {
        state.audit("tunnel-report-unreadable", state.pepId, "detail", e.getMessage());
        state
            .server
            .refusals()
            .warn(
                "unreadable tunnel reports",
                "PEP {}: tunnel report unreadable: {}",
                state.pepId,
                e.getMessage());
      }
    } else if (m instanceof DeleteRequest d) {
      desk.released(state, d.handle());
    } else if (m instanceof ClientClose) {
      desk.gone(state);
    }
    ctx.fireChannelRead(msg);
  }

  private void request(Request r, Map<dev.portcullis.cops.Handle, Installed> open) {
    TunnelRequest tr;
    try {
      tr = TunnelRequest.decode(r.signaledData("the tunnel request"));
    } catch (CopsCodecException e) {
      state
          .server
          .refusals()
          .warn(
              "malformed tunnel requests",
              "PEP {}: tunnel request {} refused: {}",
              state.pepId,
              r.handle(),
              e.getMessage());
      state.audit("tunnel-refused", state.pepId, "reason", e.getMessage());
      state.channel.writeAndFlush(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return;
    }
    // Request state like any other type's, so reports and deletes on it are known handles.
    open.put(r.handle(), new Installed(null, r.context(), null));
    desk.request(state, r.handle(), r.context(), tr);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (state.sessions.containsKey(TYPE)) {
      desk.gone(state);
    }
    ctx.fireChannelInactive();
  }
}
