package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.portcullis.pcmm.cmts.CmtsSimulator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * State synchronisation with a CMTS of a later issue than I02: PDP-Config with our PSID at every
 * connection, and after a reconnect one Synch-Request instead of a Gate-Info per gate, which also
 * finds a gate whose Gate-Set-Ack was lost.
 */
@Timeout(60)
class SynchTest {
  private static final CmtsSimulator.Profile LATER =
      new CmtsSimulator.Profile(Set.of("VoIP_UP", "BE"), 64, 5, 0, true);

  /** Completes with the first gate a listener is told of as set, or as lost. */
  private static final class Told implements GateListener {
    final CompletableFuture<Gate> set = new CompletableFuture<>();
    final CompletableFuture<Gate> lost = new CompletableFuture<>();
    volatile String setReason;

    @Override
    public void set(Gate gate, String reason) {
      if (reason.contains("synchronisation")) {
        setReason = reason;
        set.complete(gate);
      }
    }

    @Override
    public void lost(Gate gate, String reason) {
      lost.complete(gate);
    }
  }

  private static PolicyServer serverFor(CmtsSimulator sim, Told told) throws Exception {
    PolicyServer ps = PolicyServer.start(sim.addresses(), new SubscriberLimits(10, Set.of()), FAST);
    join(ps.ready());
    ps.addListener(told);
    return ps;
  }

  @Test
  void aGateSetWhoseAnswerWasLostIsFoundAfterTheReconnectNotSetAgain() throws Exception {
    Told told = new Told();
    try (CmtsSimulator sim = new CmtsSimulator(1, LATER);
        PolicyServer ps = serverFor(sim, told)) {
      CmtsSimulator.Cmts cmts = sim.cmtss().get(0);
      cmts.loseNextAnswer();
      GateRequest r = request(1, "VoIP_UP", 5060);
      Throwable e = failure(ps.set(cmts.name(), r));
      assertEquals(
          GateRefusedException.Kind.NO_ANSWER,
          assertInstanceOf(GateRefusedException.class, e).kind());
      Gate found = told.set.get(20, TimeUnit.SECONDS);
      assertEquals(cmts.gateIds(), Set.of(found.gateId()));
      assertEquals(r, found.request());
      assertEquals(List.of(found), ps.gates());
      assertEquals(1, cmts.created(), "the Gate-Set was not sent again");
      assertEquals(1, cmts.synchs());
      assertEquals(0, cmts.queried(), "no Gate-Info: the synchronisation listed the gates");
      // found, it is an ordinary gate: deleted by its ID
      join(ps.delete(found, "test"));
      assertEquals(0, cmts.gates());
    }
  }

  @Test
  void aGateTheCmtsNoLongerListsIsForgottenAndOneStillThereKept() throws Exception {
    Told told = new Told();
    try (CmtsSimulator sim = new CmtsSimulator(1, LATER);
        PolicyServer ps = serverFor(sim, told)) {
      CmtsSimulator.Cmts cmts = sim.cmtss().get(0);
      Gate kept = join(ps.set(cmts.name(), request(1, "VoIP_UP", 5060)));
      Gate gone = join(ps.set(cmts.name(), request(2, "BE", 80)));
      cmts.forget(gone.gateId());
      cmts.dropConnections();
      assertEquals(gone, told.lost.get(20, TimeUnit.SECONDS));
      assertEquals(List.of(kept), ps.gates());
      assertEquals(1, cmts.synchs());
      assertEquals(0, cmts.queried());
    }
  }

  @Test
  void anI02CmtsIsNeitherConfiguredNorSynchronised() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = serverFor(sim, new Told())) {
      CmtsSimulator.Cmts cmts = sim.cmtss().get(0);
      Gate g = join(ps.set(cmts.name(), request(1, "VoIP_UP", 5060)));
      assertEquals(false, join(ps.linkTo(cmts.name()).configured()));
      assertEquals(0, cmts.refused(), "no command it does not know was sent to it");
      join(ps.delete(g, "test"));
    }
  }
}
