package dev.portcullis.pdp;

import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.integrity.SigningCopsEncoder;
import dev.portcullis.pdp.connection.Liveness;
import dev.portcullis.pdp.connection.PdpContext;
import dev.portcullis.pdp.connection.PepAdmission;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.ReadRateLimiter;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.pdp.decision.PdpStateMachine;
import dev.portcullis.pdp.decision.RequestLimit;
import dev.portcullis.pdp.enrol.EnrolmentHandler;
import dev.portcullis.pdp.tunnel.TunnelDesk;
import dev.portcullis.pdp.tunnel.TunnelHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;

/**
 * Builds a PEP connection's pipeline, one handler per concern, in the order messages meet them:
 *
 * <pre>
 *   [starttls/tls]   added by PepAdmission when RFC 4261 negotiation starts
 *   decoder          CopsDecoder (framing, Integrity check)
 *   encoder          CopsEncoder, or SigningCopsEncoder with Integrity keys
 *   rate             ReadRateLimiter
 *   [closed]         added by PepLink once the PDP decides to close: drops what the PEP sent
 *   liveness         Liveness: open deadline, keep-alive echo and loss (its own idle watch)
 *   admission        PepAdmission: TLS negotiation, identity, Integrity, protection level
 *   requests         RequestLimit: max-handles, for every client type (before all of them)
 *   enrolment        EnrolmentHandler, only when the PDP enrols
 *   tunnels          TunnelHandler, only when the PDP grants tunnels
 *   pdp              PdpStateMachine
 * </pre>
 */
final class PdpChannelInitializer extends ChannelInitializer<Channel> {
  /** The request limit's name in the pipeline: every client type's handler is after it. */
  static final String REQUESTS = "requests";

  private final PdpContext server;
  private final KeyRing keyRing;
  private final EnrolmentHandler.Desk enrolments;
  private final TunnelDesk tunnels;

  /** A PDP that neither enrols nor grants tunnels (tests). */
  PdpChannelInitializer(PdpContext server, KeyRing keyRing) {
    this(server, keyRing, null, null);
  }

  /**
   * @param keyRing the Integrity keys, or null when the PDP has none
   * @param enrolments where enrolment requests are checked, or null when the PDP does not enrol
   * @param tunnels the tunnel desk, or null when the PDP grants no tunnels
   */
  PdpChannelInitializer(
      PdpContext server, KeyRing keyRing, EnrolmentHandler.Desk enrolments, TunnelDesk tunnels) {
    this.server = server;
    this.keyRing = keyRing;
    this.enrolments = enrolments;
    this.tunnels = tunnels;
  }

  @Override
  protected void initChannel(Channel ch) {
    IntegritySession integrity =
        keyRing == null ? null : new IntegritySession(keyRing, server.clock(), false);
    // The request states are the state machine's; every other handler sees them through the link,
    // read only, and the link holds nothing that changes (docs/architecture.md, "Who owns each
    // piece of state").
    Sessions sessions = new Sessions();
    PepLink link = new PepLink(server, ch, sessions);
    ChannelPipeline p = ch.pipeline();
    p.addLast("decoder", new CopsDecoder(server.limits().maxMessageSize(), integrity))
        .addLast(
            "encoder", integrity == null ? new CopsEncoder() : new SigningCopsEncoder(integrity))
        .addLast(
            PepLink.RATE,
            new ReadRateLimiter(server.limits().maxMessagesPerSecond(), server::nanoTime))
        .addLast("liveness", new Liveness(link))
        .addLast("admission", new PepAdmission(link, integrity));
    PdpStateMachine machine = new PdpStateMachine(link, sessions);
    // Every client type's handler comes after this one: its limits hold for types added later.
    p.addLast(REQUESTS, new RequestLimit(link, machine.deciding()));
    if (enrolments != null && server.enrols()) {
      p.addLast("enrolment", new EnrolmentHandler(link, enrolments));
    }
    if (tunnels != null) {
      p.addLast("tunnels", new TunnelHandler(link, tunnels));
    }
    p.addLast("pdp", machine);
  }
}
