package dev.portcullis.pdp;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.support.LogSummary;
import java.util.concurrent.CompletableFuture;

/**
 * What a PEP connection's handlers may ask of the server, and nothing more: configuration, policy
 * lookup, security material, audit, counters, the clock and the connection registry. The server
 * implements it ({@link ServerContext}); tests implement it with a fake clock.
 */
interface PdpContext {
  PdpConfig config();

  /** The engine serving {@code clientType} now, or null if the type is not served. */
  PolicyEngine engine(int clientType);

  /** The PDP's security settings, or null for plain COPS. */
  PdpSecurity security();

  /** The PDP's TLS, or null when it does not speak TLS. */
  CopsTls tls();

  /** True if this PDP enrols PEPs with one-time credentials (client type 0xC0A7). */
  boolean enrols();

  /** Checks an enrolment attempt off the event loops; completes with the outcome. */
  CompletableFuture<Enroller.Outcome> enrol(String pepId, Enrolment.Request r);

  /** The tunnel desk (client type 0xC0A8), or null when this PDP grants no tunnels. */
  TunnelDesk tunnels();

  /** The redirect that applies to this PEP and client type, or null. */
  PdpConfig.Redirect redirectFor(String pepId, int clientType);

  /** True if a Last PDP Address names this server. */
  boolean isSelf(PdpAddress a);

  AuditLog audit();

  PdpStats stats();

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
