package dev.portcullis.pep;

import dev.portcullis.cops.ErrorCode;

/**
 * A COPS failure reported to the PEP: the PDP answered with an Error object or a Client-Close, or
 * the PEP gave up on it. Carries the RFC 2748 error code and sub-code.
 */
public final class PepException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int errorCode;
  private final int subCode;

  public PepException(int errorCode, int subCode, String message) {
    super(message);
    this.errorCode = errorCode;
    this.subCode = subCode;
  }

  /** The RFC 2748 error code (0 when the failure is local, e.g. a timeout). */
  public int errorCode() {
    return errorCode;
  }

  /** The named error, or null for 0 or a code RFC 2748 does not define. */
  public ErrorCode error() {
    return ErrorCode.isDefined(errorCode) ? ErrorCode.valueOf(errorCode) : null;
  }

  public int subCode() {
    return subCode;
  }
}
