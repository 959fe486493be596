package dev.portcullis.pdp;

import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * An asynchronous engine for tests of a whole PDP ({@code engine="test-delayed"}): grants every
 * request after the delay its policy file holds ({@code 300ms}), completed on another thread.
 */
final class DelayedEngine implements AsyncPolicyEngine {
  /** Requests handed to any DelayedEngine so far: a test waits for its request to be in hand. */
  static final java.util.concurrent.atomic.AtomicLong ASKED =
      new java.util.concurrent.atomic.AtomicLong();

  private final Duration delay;

  DelayedEngine(Duration delay) {
    this.delay = delay;
  }

  @Override
  public CompletionStage<PolicyDecision> decideAsync(PolicyRequest request) {
    ASKED.incrementAndGet();
    return CompletableFuture.supplyAsync(
        () -> PolicyDecision.grant("delayed", "after " + delay),
        CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS));
  }

  @Override
  public String describe() {
    return "grants after " + delay;
  }

  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "test-delayed";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) {
      try {
        return new DelayedEngine(
            dev.portcullis.support.Durations.parse(Files.readString(policyFile).strip()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
