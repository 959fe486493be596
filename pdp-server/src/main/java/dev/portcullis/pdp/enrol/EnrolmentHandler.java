package dev.portcullis.pdp.enrol;

import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.pdp.connection.PepLink;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers enrolment requests (client type 0xC0A7, docs/enrolment.md) once the PEP has that type
 * open: the request is checked off the event loop (the credential store waits for the disk) and its
 * DEC written back on it. Every other message goes on to the state machine.
 */
public final class EnrolmentHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(EnrolmentHandler.class);

  /** Checks an attempt off the event loops; completes with the outcome. */
  @FunctionalInterface
  public interface Desk {
    CompletableFuture<Enroller.Outcome> enrol(String pepId, Enrolment.Request r);
  }

  private final PepLink link;
  private final Desk desk;

  public EnrolmentHandler(PepLink link, Desk desk) {
    this.link = link;
    this.desk = desk;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Request r
        && r.clientType() == Enrolment.CLIENT_TYPE
        && link.open().isOpen(Enrolment.CLIENT_TYPE)) {
      enrol(r);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  private void enrol(Request r) {
    Channel channel = link.channel;
    String id = link.pepId();
    Enrolment.Request er;
    try {
      er = Enrolment.Request.decode(r.signaledData("the enrolment request"));
    } catch (CopsCodecException e) {
      link.server
          .refusals()
          .warn(
              "malformed enrolment request",
              "PEP {}: enrolment request {} refused: {}",
              id,
              r.handle(),
              e.getMessage());
      link.audit("enrolment-refused", id, "reason", e.getMessage());
      channel.writeAndFlush(Decision.error(r.clientType(), r.handle(), e.errorObject()));
      return;
    }
    link.audit("enrolment-attempt", id, "credential", er.credentialId());
    desk.enrol(id, er)
        .whenComplete(
            (outcome, failure) ->
                channel
                    .eventLoop()
                    .execute(
                        () -> {
                          if (failure != null || link.closing()) {
                            log.warn(
                                "PEP {}: enrolment not answered: {}",
                                id,
                                failure == null ? "connection closed" : failure.toString());
                            return;
                          }
                          answer(r, er, outcome);
                        }));
  }

  private void answer(Request r, Enrolment.Request er, Enroller.Outcome outcome) {
    String id = link.pepId();
    if (outcome.granted()) {
      String serial = outcome.certificate().getSerialNumber().toString(16);
      log.info(
          "PEP {} enrolled with credential {}: certificate serial {}",
          id,
          er.credentialId(),
          serial);
      link.audit(
          "enrolled",
          id,
          "credential",
          er.credentialId(),
          "serial",
          serial,
          "notAfter",
          outcome.certificate().getNotAfter().toInstant().toString());
    } else {
      link.server.counters().securityRefusal();
      // every attempt is in the audit log; the log says the first of each minute
      link.server
          .refusals()
          .warn("enrolment refused", "PEP {}: enrolment refused: {}", id, outcome.reason());
      link.audit(
          "enrolment-refused", id, "credential", er.credentialId(), "reason", outcome.reason());
    }
    DecisionFlags flags =
        new DecisionFlags(
            false, outcome.granted() ? DecisionCommand.INSTALL : DecisionCommand.REMOVE);
    link.channel.writeAndFlush(
        Decision.of(
            r.clientType(),
            true,
            r.handle(),
            new DecisionSet(
                r.context(), flags, null, null, outcome.response().toDecisionData(), null)));
  }
}
