package dev.portcullis.cops.pcmm;

/**
 * PCMM objects that cannot be read: the field and its offset (from the start of the COPS object's
 * contents that carry them), and the PacketCable Error a CMTS or Policy Server answers with.
 */
public final class PcmmFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient PcmmErrorCode error;
  private final int subcode;
  private final int offset;

  PcmmFormatException(PcmmErrorCode error, int subcode, int offset, String message) {
    super(message, null, false, false);
    this.error = error;
    this.subcode = subcode;
    this.offset = offset;
  }

  /** {@code field} at {@code offset} is {@code actual}, which breaks {@code expected}. */
  static PcmmFormatException at(
      PcmmErrorCode error, int subcode, int offset, String field, Object actual, String expected) {
    return new PcmmFormatException(
        error,
        subcode,
        offset,
        field + ": " + actual + " at offset " + offset + " (expected: " + expected + ")");
  }

  /** The PacketCable Error to answer with. */
  public PcmmObject.PacketCableError toError() {
    return new PcmmObject.PacketCableError(error.code(), subcode);
  }

  public PcmmErrorCode error() {
    return error;
  }

  public int subcode() {
    return subcode;
  }

  /** Where the problem is, from the start of the COPS object's contents. */
  public int offset() {
    return offset;
  }
}
