package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.Deviation;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The policy server against {@link DeployedCmts}, a CMTS that behaves as the deployed one we tried
 * does: every gate command answered, the re-sent REQ, the unterminated names, and what happens when
 * its answers cannot be read or do not come.
 */
@Timeout(60)
class DeployedCmtsTest {
  private static PolicyServer serverFor(DeployedCmts cmts) throws Exception {
    PolicyServer ps =
        PolicyServer.start(Map.of("odl", cmts.address()), new SubscriberLimits(10, Set.of()), FAST);
    join(ps.ready());
    return ps;
  }

  @Test
  void everyGateCommandIsActedOnAndAnsweredAsItIsByTheDeployedCmts() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(DeployedCmts.Behaviour.AS_DEPLOYED);
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("odl", request(1, "VoIP", 5060)));
      assertEquals(0x100, g.gateId());
      // read back: the name comes with no terminating zero, read and counted
      GateMessage info = join(ps.info(g));
      assertEquals(GateCommand.GATE_INFO_ACK, info.command());
      assertEquals(
          "VoIP",
          ((TrafficProfile.ServiceClassName) info.trafficProfile()).name(),
          info.toString());
      assertEquals(1, ps.peer("odl").deviations(Deviation.UNTERMINATED_SERVICE_CLASS_NAME));
      // refused: the CMTS's own error reaches the caller
      Throwable e = failure(ps.set("odl", request(2, "GOLD", 80)));
      GateRefusedException r = assertInstanceOf(GateRefusedException.class, e);
      assertEquals(GateRefusedException.Kind.CMTS, r.kind());
      assertEquals(11, r.error().code());
      join(ps.delete(g, "test"));
      assertEquals(0, cmts.gates.size());
      assertEquals(0, cmts.withoutTriggerError.get(), "every DEC carries Trigger Error");
      assertEquals(5, ps.peer("odl").major());
      assertEquals(0, ps.peer("odl").minor());
    }
  }

  @Test
  void aReqSentAgainOnTheSameConnectionIsNotAReconnect() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(DeployedCmts.Behaviour.AS_DEPLOYED);
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("odl", request(1, "VoIP_UP", 5060))); // the REQ follows its answer
      join(ps.set("odl", request(2, "VoIP_UP", 5060))); // after the REQ: gates go on
      assertEquals(2, ps.gates().size());
      assertEquals(0, cmts.gateInfos.get(), "no gate checked: nothing was lost");
      join(ps.delete(g, "test"));
    }
  }

  @Test
  void anAnswerThatCannotBeReadIsSaidWithItsObjectAndOffsetNotAsNoAnswer() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(new DeployedCmts.Behaviour(true, false));
        PolicyServer ps = serverFor(cmts)) {
      long t0 = System.nanoTime();
      Throwable e = failure(ps.set("odl", request(1, "VoIP", 5060)));
      GateRefusedException r = assertInstanceOf(GateRefusedException.class, e);
      assertEquals(GateRefusedException.Kind.UNREADABLE, r.kind(), r.getMessage());
      assertTrue(r.getMessage().contains("Gate-Set-Ack"), r.getMessage());
      assertTrue(r.getMessage().contains("offset 24"), r.getMessage());
      assertTrue(
          System.nanoTime() - t0 < FAST.answerTimeout().toNanos(), "failed at once, not timed out");
      assertEquals(1, ps.peer("odl").unreadableAnswers());
      assertEquals(0, ps.gates().size());
    }
  }

  @Test
  void aCommandLeftUnansweredIsCountedAgainstItsCmts() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(new DeployedCmts.Behaviour(false, true));
        PolicyServer ps = serverFor(cmts)) {
      Throwable e = failure(ps.set("odl", request(1, "VoIP", 5060)));
      assertEquals(
          GateRefusedException.Kind.NO_ANSWER,
          assertInstanceOf(GateRefusedException.class, e).kind());
      // the Gate-Set, and the PDP-Config sent at the REQ (it opened with version 5.0)
      assertEquals(2, ps.peer("odl").unansweredCommands());
    }
  }
}
