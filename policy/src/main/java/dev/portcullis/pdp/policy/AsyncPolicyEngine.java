package dev.portcullis.pdp.policy;

import java.util.concurrent.CompletionStage;

/**
 * A policy engine that decides asynchronously: it calls out to another system (a directory, a risk
 * service, an operator's approval) and completes the decision later, on any thread. The PDP never
 * blocks a connection's event loop on it: it sends each decision when its stage completes, in
 * whatever order they complete (a COPS decision names its handle), and answers with a decision
 * error "Unable to process" (RFC 2748 section 2.2.8, error 4) if the stage fails or does not
 * complete within the client type's {@code decision-timeout}.
 *
 * <p>Rules the PDP keeps for an asynchronous engine:
 *
 * <ul>
 *   <li>A later request on the same handle supersedes one still being decided: only the later
 *       decision is sent and installed.
 *   <li>A request deleted (DRQ, Client-Close, lost connection), timed out or failed while being
 *       decided is never installed; if its stage completes normally later, the engine hears {@link
 *       #released} for it, so state a decision opened (a session) is not left behind.
 *   <li>On a policy reload the PDP decides installed requests again with {@link #reevaluateAsync}
 *       and pushes the ones that changed, when they complete.
 *   <li>One PEP connection has at most {@code max-pending-decisions} requests being decided; a
 *       request beyond that is answered with the error above without asking the engine.
 * </ul>
 *
 * <p>Completing a stage must not throw; a stage completed with an exception counts as a failed
 * decision, logged (summarised when repeated) and answered with the error above.
 */
public interface AsyncPolicyEngine extends PolicyEngine {

  /**
   * Starts deciding a new or updated request. Called on the PEP connection's event loop: return
   * promptly, and complete the stage on another thread (or already completed).
   */
  CompletionStage<PolicyDecision> decideAsync(PolicyRequest request);

  /**
   * Starts deciding an installed request again after a policy change, without changing state.
   * Defaults to {@link #decideAsync}.
   */
  default CompletionStage<PolicyDecision> reevaluateAsync(PolicyRequest request) {
    return decideAsync(request);
  }

  /**
   * Decides and waits for the answer: for tools and tests off the event loop. The PDP never calls
   * it for an asynchronous engine.
   */
  @Override
  default PolicyDecision decide(PolicyRequest request) {
    return decideAsync(request).toCompletableFuture().join();
  }

  /** As {@link #decide}: waits for {@link #reevaluateAsync}. The PDP never calls it. */
  @Override
  default PolicyDecision reevaluate(PolicyRequest request) {
    return reevaluateAsync(request).toCompletableFuture().join();
  }
}
