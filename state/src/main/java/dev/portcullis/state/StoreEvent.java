package dev.portcullis.state;

/**
 * One change below a watched path.
 *
 * @param kind what happened
 * @param path the entry's full path ({@code null} for {@link Kind#READY})
 * @param value its value after a {@link Kind#PUT}, else {@code null}
 */
public record StoreEvent(Kind kind, String path, Versioned value) {
  /** What happened. */
  public enum Kind {
    /** Created or changed. */
    PUT,
    /** Deleted, or its lease ended. */
    REMOVED,
    /** Everything that existed when the watch began has been delivered. */
    READY
  }
}
