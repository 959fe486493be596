package dev.portcullis.pdp.connection;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.support.LogSummary;
import java.net.InetSocketAddress;

/**
 * What a PEP connection's handlers may ask of the server, and nothing more: the limits they apply,
 * policy lookup, security material, audit, counters to add to, the clock and the connection
 * registry. The server implements it ({@code ServerContext}, in the package above: it depends on
 * this one, never the other way); tests implement it with a fake clock.
 */
public interface PdpContext {
  /** The limits and timers the configuration sets for a connection. */
  ConnectionLimits limits();

  /** The engine serving {@code clientType} now, or null if the type is not served. */
  PolicyEngine engine(int clientType);

  /** The subjects an operator revoked, whose every decision is a Remove (none by default). */
  default RevokedSubjects revoked() {
    return RevokedSubjects.NONE;
  }

  /** The PDP's security settings, or null for plain COPS. */
  PdpSecurity security();

  /** The PDP's TLS, or null when it does not speak TLS. */
  CopsTls tls();

  /** True if this PDP enrols PEPs with one-time credentials (client type 0xC0A7). */
  boolean enrols();

  /** True if this PDP grants tunnels (client type 0xC0A8, its handler in the pipeline). */
  boolean grantsTunnels();

  /** The PDP this PEP and client type are redirected to, or null. */
  InetSocketAddress redirectFor(String pepId, int clientType);

  /** True if a Last PDP Address names this server. */
  boolean isSelf(PdpAddress a);

  AuditLog audit();

  /** The server's counters, which a connection adds to. */
  ConnectionCounters counters();

  /** Session timings for the simulator, or null when they are not kept. */
  PdpTimings timings();

  /** Where refusals an outsider can cause at will are logged, summarised. */
  LogSummary refusals();

  /** Where decisions an engine failed or did not make in time are logged, summarised. */
  LogSummary decisionFailures();

  /**
   * The wall clock: Integrity keys' validity, log summaries' minutes (the system's in production;
   * {@code PdpServer.start(config, threads, clock)} gives another).
   */
  java.time.Clock clock();

  /** The clock, in nanoseconds from an arbitrary origin (System.nanoTime in production). */
  long nanoTime();

  /** Admits a new connection, or returns false when the PDP is full or closing. */
  boolean register(PepConnection connection);

  void unregister(PepConnection connection);

  /**
   * A connection's asynchronous decisions ended (made, timed out or dropped): a drain waiting for
   * none to be left looks again.
   */
  default void decisionsSettled() {}
}
