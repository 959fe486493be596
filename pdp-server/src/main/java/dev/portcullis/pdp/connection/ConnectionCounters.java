package dev.portcullis.pdp.connection;

/**
 * What a connection's handlers count: the server's counters, of which they may only add (the server
 * hands them this view; the counters' public face, {@code PdpStats}, only reads).
 */
public interface ConnectionCounters {
  /** A request decided: its client type, whether installed, and how long it took. */
  void decision(int clientType, boolean installed, long nanos);

  /** A request its engine could not decide (answered Unable to process). */
  void failedDecision(int clientType);

  /** A TLS handshake completed, resumed or full. */
  void handshake(boolean resumed);

  void protocolError();

  /** An unsolicited decision pushed after a policy change. */
  void pushed();

  void report();

  /** A PEP refused for security (TLS, identity, Integrity, enrolment). */
  void securityRefusal();
}
