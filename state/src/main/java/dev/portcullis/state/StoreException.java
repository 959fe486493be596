package dev.portcullis.state;

/**
 * The store could not do what was asked: unreachable, timed out, refused (ACL), or a malformed
 * path. The message says which and where, never a secret.
 */
public class StoreException extends Exception {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
