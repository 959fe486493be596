package dev.portcullis.active.verify;

/** What became of a packet at a router: accepted, parked, or dropped for one reason. */
public enum Outcome {
  /** Verified (and run and forwarded, at a router). */
  ACCEPTED(false),
  /** Parked until the code secret (or module) arrives from the Code Server. */
  PENDING(false),
  /** Not a version-1 packet: too short, bad field, lengths that disagree. */
  MALFORMED(true),
  /** Now is before SST (less the allowed clock skew). */
  NOT_YET_VALID(true),
  /** Now is after SET (plus the allowed clock skew). */
  EXPIRED(true),
  /** The Code Server knows no such code, or will not give it to this router. */
  UNKNOWN_CODE(true),
  /** The code secret or module could not be fetched (Code Server down, queue full). */
  CODE_UNAVAILABLE(true),
  /** A MAC algorithm this router does not accept (a legacy one, unless configured). */
  MAC_REFUSED(true),
  /** The tag does not match: some field, the payload or the tag was changed, or a wrong key. */
  BAD_MAC(true),
  /** Seen before, or older than the replay window. */
  REPLAY(true),
  /**
   * A new flow refused because the router keeps as many flows' replay state as it may (session
   * cache and high-water marks full).
   */
  OVERLOADED(true),
  /** A verified packet whose GCM payload would not decrypt. */
  DECRYPT_FAILED(true),
  /** The code's service decided to drop it (a rate limiter, say). */
  SERVICE_DROP(true),
  /** No route to its destination. */
  NO_ROUTE(true);

  private final boolean drop;

  Outcome(boolean drop) {
    this.drop = drop;
  }

  public boolean isDrop() {
    return drop;
  }
}
