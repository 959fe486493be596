package dev.portcullis.pcmm;

import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.ConfigException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An asynchronous engine for the PCMM server's tests ({@code engine="test-held"}): the rules
 * engine's decision on the same policy file, completed on another thread only once the test lets it
 * ({@link #release}), as an engine asking a directory would. Waiting for it ({@link #decide})
 * fails, naming the thread that waited: the server must continue it, never join it.
 */
final class HeldEngine implements AsyncPolicyEngine {
  /** The last engine loaded, for the test that loaded it. */
  static volatile HeldEngine last;

  private final PolicyEngine rules;
  private final CompletableFuture<Void> released = new CompletableFuture<>();
  final AtomicInteger asked = new AtomicInteger();

  private HeldEngine(PolicyEngine rules) {
    this.rules = rules;
  }

  /** Lets every decision asked for, and every one to come, complete (on a thread of its own). */
  void release() {
    dev.portcullis.support.Threads.start("held-engine", () -> released.complete(null));
  }

  @Override
  public CompletionStage<PolicyDecision> decideAsync(PolicyRequest request) {
    asked.incrementAndGet();
    return released.thenApply(x -> rules.decide(request));
  }

  @Override
  public PolicyDecision decide(PolicyRequest request) {
    throw new IllegalStateException(
        "an asynchronous engine waited for on " + Thread.currentThread().getName());
  }

  @Override
  public String describe() {
    return "the rules, held until released";
  }

  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "test-held";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      HeldEngine e = new HeldEngine(PolicyEngineProvider.named("rules").load(policyFile, null));
      last = e;
      return e;
    }
  }
}
