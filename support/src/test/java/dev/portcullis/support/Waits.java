package dev.portcullis.support;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * Awaitility as our tests use it, for what another thread or process does in its own time (a PDP
 * pushing a decision, a quorum electing, charon deleting an SA): polled every 10 ms from the first
 * moment, for at most 10 s unless the test says otherwise. Awaitility's own default polls every 100
 * ms after a 100 ms delay, which would add a tenth of a second to each of a few hundred waits that
 * are usually over within milliseconds.
 */
public final class Waits {
  private Waits() {}

  public static ConditionFactory await() {
    return Awaitility.await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(10))
        .atMost(Duration.ofSeconds(10));
  }
}
