package dev.portcullis.active.verify;

import java.util.concurrent.CompletableFuture;

/**
 * Where a router gets code secrets: the Code Server, in production. Completes with Kci for (Ci,
 * epoch) — the caller wipes the array — or exceptionally: with {@link UnknownCodeException} when
 * the code or epoch does not exist or is not this router's to have, with anything else when the
 * source could not be reached.
 */
@FunctionalInterface
public interface CodeSource {
  CompletableFuture<byte[]> secret(int code, int epoch);

  /**
   * The epochs of {@code code} whose secrets exist now (what the domain has announced), so that a
   * router asks only for those: packets claiming any other epoch cost no request. Completes
   * exceptionally as {@link #secret} does. A source that answers every (code, epoch) from memory
   * (tests, benchmarks, pre-warming) may return null: every epoch then counts as announced.
   */
  default CompletableFuture<int[]> epochs(int code) {
    return null;
  }

  /**
   * Whether {@code code} is one this router may run at all; packets of any other code are dropped
   * as unknown without a request and without any state kept for them.
   */
  default boolean knows(int code) {
    return true;
  }

  /** The code or epoch does not exist, or this router is not allowed it. */
  final class UnknownCodeException extends Exception {
    private static final long serialVersionUID = 1L;

    public UnknownCodeException(String message) {
      super(message);
    }
  }
}
