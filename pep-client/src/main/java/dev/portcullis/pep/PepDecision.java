package dev.portcullis.pep;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.AccessDecision;

/**
 * A PDP's decision on one request: granted (Install) or not (Remove), with the decision data it
 * sent (empty if none), and whether it was solicited by a request or pushed by the PDP.
 *
 * @param data the access decision data (empty for the enrolment client type, 0xC0A7)
 * @param clientData the Client Specific Decision Data as sent, or null if none
 */
public record PepDecision(
    boolean granted, AccessDecision data, boolean solicited, Bytes clientData) {
  public PepDecision(boolean granted, AccessDecision data, boolean solicited) {
    this(granted, data, solicited, null);
  }

  /**
   * For an audit record of a request answered {@code d} or failed with {@code error}: {@code
   * install}, {@code remove}, or {@code none} (no decision came).
   */
  public static String outcome(PepDecision d, Throwable error) {
    return error != null || d == null ? "none" : d.granted() ? "install" : "remove";
  }

  /** For an audit record: the rule that decided, or null. */
  public static String rule(PepDecision d, Throwable error) {
    return error != null || d == null || d.data() == null ? null : d.data().ruleId();
  }

  /** For an audit record: why no decision came, or the decision's reason, or null. */
  public static String reason(PepDecision d, Throwable error) {
    return error != null
        ? error.getMessage()
        : d == null || d.data() == null ? null : d.data().reason();
  }
}
