package dev.portcullis.cops;

/**
 * A COPS message that cannot be accepted, with what the peer must be told: the RFC 2748 error code
 * and sub-code, the byte offset in the message and the field that was wrong. Messages are shaped
 * {@code "object length: 3 at offset 12 (expected: >= 4)"}.
 *
 * <p>Thrown for every malformed input and nothing else; carries no stack trace, since it is an
 * answer to input, not a fault in the program.
 */
public final class CopsCodecException extends Exception {
  private static final long serialVersionUID = 1L;

  private final ErrorCode error;
  private final int subCode;
  private final int offset;
  private final String field;
  private final int clientType;
  private final OpCode opCode;
  private final transient Handle handle;

  CopsCodecException(
      ErrorCode error,
      int subCode,
      int offset,
      String field,
      String message,
      int clientType,
      OpCode opCode,
      Handle handle) {
    super(message, null, false, false);
    this.error = error;
    this.subCode = subCode;
    this.offset = offset;
    this.field = field;
    this.clientType = clientType;
    this.opCode = opCode;
    this.handle = handle;
  }

  /** A problem with {@code field} at {@code offset}: its value and the rule it breaks. */
  public static CopsCodecException at(
      ErrorCode error, int subCode, int offset, String field, Object actual, String expected) {
    return new CopsCodecException(
        error,
        subCode,
        offset,
        field,
        field + ": " + actual + " at offset " + offset + " (expected: " + expected + ")",
        -1,
        null,
        null);
  }

  /** This exception with the header's client type and op code, and the request's handle. */
  CopsCodecException in(int clientType, OpCode opCode, Handle handle) {
    return new CopsCodecException(
        error, subCode, offset, field, getMessage(), clientType, opCode, handle);
  }

  /** The error code to report to the peer. */
  public ErrorCode error() {
    return error;
  }

  /** The error sub-code (C-Num and C-Type for {@link ErrorCode#UNKNOWN_OBJECT}). */
  public int subCode() {
    return subCode;
  }

  /** Byte offset from the start of the message where the problem was found. */
  public int offset() {
    return offset;
  }

  /** The field at fault, e.g. {@code "object length"}. */
  public String field() {
    return field;
  }

  /** The client type from the common header, or -1 if the header itself was bad. */
  public int clientType() {
    return clientType;
  }

  /** The op code from the common header, or null if it was bad or unknown. */
  public OpCode opCode() {
    return opCode;
  }

  /** The Client Handle of the message, if it was read before the problem; else null. */
  public Handle handle() {
    return handle;
  }

  /** The Error object that reports this problem to the peer. */
  public ErrorObject errorObject() {
    return new ErrorObject(error, subCode);
  }
}
