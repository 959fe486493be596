package dev.portcullis.pcmm;

import java.util.concurrent.CompletableFuture;

/**
 * Where a policy server records each Gate-Set before it leaves (write-ahead) and what became of it,
 * so that a fleet member taking a CMTS over knows every gate there and every Gate-Set whose answer
 * its predecessor never recorded ({@link FleetGates}). A lone server records nothing ({@link
 * #NONE}).
 */
interface GateJournal {
  /**
   * Records that a Gate-Set for {@code request} is about to leave for {@code cmts}; completes with
   * the intent's name once it is durable, or fails (then the Gate-Set is not sent).
   */
  CompletableFuture<String> intend(String cmts, GateRequest request);

  /** The intent's Gate-Set made {@code gate} (filed under its Gate ID), or was refused (null). */
  void resolved(String intent, Gate gate);

  /**
   * An intent whose Gate-Set got no answer stays as it is (the gate may exist) until it expires
   * ({@link GateSetsInDoubt}: the gate's T1): then it is forgotten.
   */
  void expired(String cmts, String intent);

  /** Records nothing: a lone policy server. */
  GateJournal NONE =
      new GateJournal() {
        @Override
        public CompletableFuture<String> intend(String cmts, GateRequest request) {
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public void resolved(String intent, Gate gate) {}

        @Override
        public void expired(String cmts, String intent) {}
      };
}
