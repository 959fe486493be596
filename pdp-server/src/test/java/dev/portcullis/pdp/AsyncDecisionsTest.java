package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Reason;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * An {@link AsyncPolicyEngine} behind one connection: decisions sent as they complete, in any
 * order; the decision timeout; requests deleted, superseded or closed while being decided; engine
 * failures; and a policy change decided again asynchronously.
 */
class AsyncDecisionsTest extends EmbeddedPdpTest {

  /** Completes nothing by itself: the test completes each subject's stage by hand. */
  private static final class Engine implements AsyncPolicyEngine {
    final Map<String, CompletableFuture<PolicyDecision>> asked = new LinkedHashMap<>();
    final List<String> released = new ArrayList<>();
    final List<String> reevaluated = new ArrayList<>();
    RuntimeException throwOnAsk;

    @Override
    public CompletionStage<PolicyDecision> decideAsync(PolicyRequest r) {
      if (throwOnAsk != null) {
        throw throwOnAsk;
      }
      CompletableFuture<PolicyDecision> f = new CompletableFuture<>();
      asked.put(r.access().subject(), f);
      return f;
    }

    @Override
    public CompletionStage<PolicyDecision> reevaluateAsync(PolicyRequest r) {
      reevaluated.add(r.access().subject());
      CompletableFuture<PolicyDecision> f = new CompletableFuture<>();
      asked.put("again:" + r.access().subject(), f);
      return f;
    }

    @Override
    public void released(PolicyRequest r) {
      released.add(r.access().subject());
    }

    @Override
    public String describe() {
      return "by hand";
    }

    void grant(String subject) {
      asked.get(subject).complete(PolicyDecision.grant("ok-" + subject, "test"));
    }

    void deny(String subject) {
      asked.get(subject).complete(PolicyDecision.deny("no-" + subject, "test"));
    }
  }

  private final Engine engine = new Engine();

  private void connect(int maxHandles) throws Exception {
    connect(engine, List.of(), 1000, maxHandles);
    open();
  }

  /** What the PDP has sent once its event loop ran what was queued (decisions flush soon after). */
  private CopsMessage sent() throws Exception {
    ch.runPendingTasks();
    return next();
  }

  private Decision decision() throws Exception {
    ch.runPendingTasks();
    return next(Decision.class);
  }

  private static void assertUnableToProcess(Decision d, String handle) {
    assertEquals(Handle.of(handle), d.handle());
    assertNotNull(d.error(), d.toString());
    assertEquals(ErrorCode.UNABLE_TO_PROCESS.code(), d.error().code());
  }

  private PepConnection connection() {
    return pdp.connections.iterator().next();
  }

  @Test
  void decisionsAreSentAsTheyCompleteInAnyOrder() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    send(req("h2", "bob"));
    assertNull(sent(), "nothing sent before the engine answers");
    assertEquals(2, connection().decisionsInFlight());

    engine.deny("bob");
    Decision first = decision();
    assertEquals(Handle.of("h2"), first.handle());
    assertEquals(DecisionCommand.REMOVE, command(first));
    engine.grant("alice");
    Decision second = decision();
    assertEquals(Handle.of("h1"), second.handle());
    assertEquals(DecisionCommand.INSTALL, command(second));
    assertTrue(second.solicited());
    assertEquals(0, connection().decisionsInFlight());
    assertEquals(1, pdp.stats.decisions(TYPE, true));
    assertEquals(1, pdp.stats.decisions(TYPE, false));
  }

  /**
   * An operator revokes alice while the engine is deciding her request: its grant, when it comes,
   * is sent as the revocation's Remove; and a new request of hers is not even asked of the engine.
   */
  @Test
  void aSubjectRevokedWhileItsDecisionIsBeingMadeGetsTheRevocationsRemove() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    pdp.revoked.revoke(
        new dev.portcullis.pdp.connection.RevokedSubjects.Revocation(
            "alice", "ops-1", "incident 42", java.time.Instant.EPOCH));
    engine.grant("alice");
    engine.asked.clear();
    Decision d = decision();
    assertEquals(Handle.of("h1"), d.handle());
    assertEquals(
        DecisionCommand.REMOVE, command(d), "the engine's grant came after the revocation");
    send(req("h3", "alice"));
    assertEquals(DecisionCommand.REMOVE, command(decision()));
    assertTrue(engine.asked.isEmpty(), "a revoked subject's request is not asked of the engine");
  }

  @Test
  void aDecisionNotMadeInTimeIsUnableToProcessAndALateAnswerIsReleased() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    // a real wait under test: wall-clock time passing (a slow machine) moves no timer, only
    // advance() does
    Thread.sleep(5);
    advance(PdpConfig.DEFAULT_DECISION_TIMEOUT.minusMillis(1));
    assertNull(sent());
    advance(Duration.ofMillis(1));
    assertUnableToProcess(decision(), "h1");
    assertEquals(1, pdp.stats.failedDecisions(TYPE));
    assertEquals(0, connection().decisionsInFlight());

    engine.grant("alice"); // too late: never installed, and the engine hears it let go
    assertNull(sent());
    assertEquals(List.of("alice"), engine.released);
    assertEquals(0, pdp.stats.decisions(TYPE, true));
  }

  @Test
  void aRequestDeletedWhileBeingDecidedIsNeverAnsweredAndIsReleased() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    send(new DeleteRequest(TYPE, false, Handle.of("h1"), new Reason(2, 0), null));
    assertEquals(0, connection().decisionsInFlight());
    engine.grant("alice");
    assertNull(sent());
    assertEquals(List.of("alice"), engine.released);
    advance(PdpConfig.DEFAULT_DECISION_TIMEOUT);
    assertNull(sent(), "the cancelled timeout sends nothing");
  }

  @Test
  void aLaterRequestOnTheHandleSupersedesOneBeingDecided() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    send(req("h1", "carol"));
    assertEquals(1, connection().decisionsInFlight());
    engine.grant("alice");
    assertNull(sent(), "the superseded decision is not sent");
    engine.deny("carol");
    Decision d = decision();
    assertEquals(DecisionCommand.REMOVE, command(d));
    assertEquals(List.of(), engine.released, "a superseded request is updated, not released");
  }

  @Test
  void engineFailuresAreAnsweredUnableToProcessAndTheConnectionServesOn() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    engine.asked.get("alice").completeExceptionally(new IllegalStateException("directory down"));
    assertUnableToProcess(decision(), "h1");

    engine.throwOnAsk = new IllegalStateException("bug");
    send(req("h2", "bob"));
    assertUnableToProcess(decision(), "h2");
    assertEquals(2, pdp.stats.failedDecisions(TYPE));

    engine.throwOnAsk = null;
    send(req("h3", "dave"));
    engine.grant("dave");
    assertEquals(DecisionCommand.INSTALL, command(decision()));
    assertTrue(ch.isOpen());
  }

  @Test
  void requestsBeingDecidedCountAgainstTheHandleLimit() throws Exception {
    connect(2);
    send(req("h1", "alice"));
    send(req("h2", "bob"));
    send(req("h3", "carol"));
    assertUnableToProcess(next(Decision.class), "h3");
    assertFalse(engine.asked.containsKey("carol"), "not even asked");
    send(req("h1", "dave")); // an update of a handle being decided is not a new handle
    assertNull(sent());
  }

  @Test
  void requestsBeingDecidedAreBoundedPerConnection() throws Exception {
    connect(engine, List.of(), 1000, 100, 2);
    open();
    send(req("h1", "alice"));
    send(req("h2", "bob"));
    send(req("h3", "carol"));
    assertUnableToProcess(next(Decision.class), "h3");
    assertFalse(engine.asked.containsKey("carol"), "the engine was not asked");
    send(req("h2", "dave")); // superseding one being decided adds nothing
    assertNull(sent());
    engine.grant("alice");
    decision();
    send(req("h3", "carol")); // a place freed
    assertTrue(engine.asked.containsKey("carol"));
  }

  @Test
  void aClosedClientTypeOrConnectionReleasesWhatIsStillBeingDecided() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    send(ClientClose.of(TYPE, ErrorCode.SHUTTING_DOWN, 0));
    engine.grant("alice");
    assertEquals(List.of("alice"), engine.released);

    connect(10);
    send(req("h1", "bob"));
    ch.close();
    engine.grant("bob");
    assertEquals(List.of("alice", "bob"), engine.released);
  }

  @Test
  void aPolicyChangeIsDecidedAgainAndChangesArePushedWhenTheyComplete() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    send(req("h2", "bob"));
    engine.grant("alice");
    engine.grant("bob");
    decision();
    decision();

    connection().reevaluate(TYPE, engine);
    assertEquals(List.of("alice", "bob"), engine.reevaluated);
    engine.asked.get("again:alice").complete(PolicyDecision.grant("ok-alice", "test"));
    engine.asked.get("again:bob").complete(PolicyDecision.deny("no-bob", "test"));
    Decision pushed = decision();
    assertFalse(pushed.solicited());
    assertEquals(Handle.of("h2"), pushed.handle());
    assertEquals(DecisionCommand.REMOVE, command(pushed));
    assertNull(sent(), "an unchanged decision is not pushed");
    assertEquals(1, pdp.stats.unsolicitedDecisions());
  }

  @Test
  void anEngineThatFailsToDecideAgainLeavesTheInstalledDecisionAndTheConnection() throws Exception {
    connect(10);
    send(req("h1", "alice"));
    engine.grant("alice");
    decision();
    AsyncPolicyEngine broken =
        new AsyncPolicyEngine() {
          @Override
          public CompletionStage<PolicyDecision> decideAsync(PolicyRequest r) {
            return null; // a bug in the engine
          }

          @Override
          public String describe() {
            return "broken";
          }
        };
    connection().reevaluate(TYPE, broken);
    ch.runPendingTasks();
    assertNull(sent());
    assertTrue(ch.isOpen());
    ch.checkException();
  }
}
