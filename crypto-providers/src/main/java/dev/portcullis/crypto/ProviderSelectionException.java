package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.ConfigException;

/**
 * No provider in an algorithm's list could serve it. The registry refuses to start (or, on a
 * reload, keeps the table it has).
 */
public final class ProviderSelectionException extends ConfigException {
  private static final long serialVersionUID = 1L;

  private final transient Algorithm algorithm;

  public ProviderSelectionException(String source, Algorithm algorithm, String why) {
    super(source, algorithm + ": no provider left to serve it: " + why, null);
    this.algorithm = algorithm;
  }

  public Algorithm algorithm() {
    return algorithm;
  }
}
