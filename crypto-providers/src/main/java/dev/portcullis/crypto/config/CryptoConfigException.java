package dev.portcullis.crypto.config;

import dev.portcullis.support.ConfigException;

/** A crypto provider configuration that cannot be used; see {@link ConfigException}. */
public class CryptoConfigException extends ConfigException {
  private static final long serialVersionUID = 1L;

  /** A problem at a place in a configuration file; any location part may be unknown. */
  public CryptoConfigException(
      String source, int line, int column, String element, String attribute, String problem) {
    super(source, line, column, element, attribute, problem, null);
  }

  public CryptoConfigException(
      String source,
      int line,
      int column,
      String element,
      String attribute,
      String problem,
      Throwable cause) {
    super(source, line, column, element, attribute, problem, cause);
  }

  /** A problem with a configuration as a whole (no place in a file). */
  public CryptoConfigException(String source, String problem, Throwable cause) {
    super(source, problem, cause);
  }
}
