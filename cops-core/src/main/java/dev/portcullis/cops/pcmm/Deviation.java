package dev.portcullis.cops.pcmm;

/**
 * Something a peer wrote that the specification does not allow but deployed implementations write,
 * read anyway: the reader tells its caller each one, so that it is counted and said, never taken
 * silently. Writing stays strict.
 *
 * @param kind what it is, one of the constants here (a metric's tag)
 * @param detail what was read, in words
 * @param offset where, from the start of the COPS object's contents
 */
public record Deviation(String kind, String detail, int offset) {
  /**
   * A DOCSIS Service Class Name with no terminating zero: its characters fill the field, a multiple
   * of 4 octets (4 to 16 characters). I02 has 1 to 15 characters and a zero.
   */
  public static final String UNTERMINATED_SERVICE_CLASS_NAME = "unterminated-service-class-name";

  /** Every kind, for metrics registered up front. */
  public static final java.util.List<String> KINDS =
      java.util.List.of(UNTERMINATED_SERVICE_CLASS_NAME);

  /** The reader's sink for what it took liberally. */
  @FunctionalInterface
  public interface Sink {
    /** Takes nothing: for callers that do not report deviations. */
    Sink NONE = d -> {};

    void read(Deviation d);
  }

  @Override
  public String toString() {
    return detail + " at offset " + offset;
  }
}
