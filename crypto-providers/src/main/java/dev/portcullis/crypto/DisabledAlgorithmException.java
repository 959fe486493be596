package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;

/** Thrown when code asks for a legacy algorithm the configuration has not enabled. */
public final class DisabledAlgorithmException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Algorithm algorithm;

  public DisabledAlgorithmException(Algorithm algorithm, String source) {
    super(
        algorithm
            + " is a legacy algorithm and is not enabled in "
            + source
            + " (expected: <algorithm name=\""
            + algorithm
            + "\" legacy=\"true\"/> where a protocol demands it)");
    this.algorithm = algorithm;
  }

  public Algorithm algorithm() {
    return algorithm;
  }
}
