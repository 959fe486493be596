package dev.portcullis.pdp.policy.mls;

import dev.portcullis.pdp.policy.PolicyRequest;
import java.util.function.Predicate;

/**
 * Where MLS sessions live: in this PDP ({@link LocalSessions}) or in the fleet's store ({@link
 * FleetSessions}, MYSEA's Trusted Path Server role). Thread-safe.
 */
interface SessionTable extends AutoCloseable {

  /** The key a subject's session is kept under for a request from {@code pepId}. */
  String key(String pepId, String subject);

  /**
   * The installed requests decided by the session at {@code key}: a change to one subject's session
   * decides that subject's requests again, not every request of the PDP.
   */
  default Predicate<PolicyRequest> decidedBy(String key) {
    return r -> key.equals(key(r.pepId(), r.access().subject()));
  }

  /**
   * The session at {@code key}, or null.
   *
   * @param fresh a new decision (which may read the store synchronously in linearizable mode)
   *     rather than a re-evaluation of an installed one (which uses the local view)
   * @throws Unavailable when the shared state cannot be known: decide to deny
   */
  Label get(String key, boolean fresh) throws Unavailable;

  /**
   * The session of {@code subject} through whichever PEP it logged in (the highest label when it
   * holds several), from the local view; null if it holds none.
   */
  Label labelOf(String subject) throws Unavailable;

  /** Opens or moves the session. */
  void put(String key, Label label) throws Unavailable;

  /** Ends the session, if any. */
  void remove(String key);

  /** Open sessions this table sees. */
  int size();

  /**
   * One open session as an operator sees it.
   *
   * @param pepId the PEP it was opened through, or null where sessions are the fleet's (one per
   *     subject, whichever PEP opened it)
   */
  record Open(String pepId, String subject, Label label) {}

  /** The open sessions this table sees now (a snapshot; the local view for a fleet's). */
  java.util.List<Open> list();

  /** For logs. */
  String describe();

  @Override
  void close();

  /** Shared session state cannot be read or written now; the reason says why. */
  final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }
}
