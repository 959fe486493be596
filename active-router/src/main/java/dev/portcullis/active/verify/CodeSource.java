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

  /** The code or epoch does not exist, or this router is not allowed it. */
  final class UnknownCodeException extends Exception {
    private static final long serialVersionUID = 1L;

    public UnknownCodeException(String message) {
      super(message);
    }
  }
}
