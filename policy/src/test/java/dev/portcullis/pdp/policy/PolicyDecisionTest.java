package dev.portcullis.pdp.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionSet;
import org.junit.jupiter.api.Test;

/** A decision as a DEC's: one instance per context, whatever order the contexts come in. */
class PolicyDecisionTest {
  @Test
  void eachContextGetsItsOwnDecisionSetAgainAndAgain() {
    PolicyDecision grant = PolicyDecision.grant("r1", "allowed");
    Context in = new Context(Context.R_INCOMING, 0);
    Context out = new Context(Context.R_OUTGOING, 0);
    DecisionSet a = grant.decisionSet(in);
    DecisionSet b = grant.decisionSet(out);
    assertNotSame(a, b);
    for (int i = 0; i < 3; i++) { // alternating contexts (two PEPs' requests) keep both
      assertSame(a, grant.decisionSet(new Context(Context.R_INCOMING, 0)));
      assertSame(b, grant.decisionSet(out));
    }
    assertEquals(in, a.context());
    assertEquals(DecisionCommand.INSTALL, a.flags().decisionCommand());
    assertSame(grant.decisionData(), a.clientSpecific());
    assertEquals(
        DecisionCommand.REMOVE,
        PolicyDecision.deny("r2", "no").decisionSet(in).flags().decisionCommand());
  }

  @Test
  void contextsBeyondTheKeptOnesStillGetTheirDecision() {
    PolicyDecision grant = PolicyDecision.grant("r1", null);
    for (int m = 0; m < 3 * PolicyDecision.MAX_CONTEXTS; m++) {
      Context c = new Context(Context.R_INCOMING, m);
      DecisionSet s = grant.decisionSet(c);
      assertEquals(c, s.context());
      assertEquals(DecisionCommand.INSTALL, s.flags().decisionCommand());
    }
    assertSame(
        grant.decisionSet(new Context(Context.R_INCOMING, 0)),
        grant.decisionSet(new Context(Context.R_INCOMING, 0)));
  }
}
