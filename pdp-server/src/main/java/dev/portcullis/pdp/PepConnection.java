package dev.portcullis.pdp;

import dev.portcullis.cops.ErrorCode;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.net.InetSocketAddress;
import java.util.function.Predicate;

/**
 * One PEP's connection as the server sees it: what a policy change, a drain, a fleet hand-over or a
 * shutdown does to it. {@link PdpStateMachine} is the one implementation; the server holds its
 * connections by this interface, so {@link PdpContext} does not name the class that calls it.
 * Everything but {@link #execute}, {@link #pepId} and the counts runs on the connection's event
 * loop: callers wrap it in {@code execute}.
 */
interface PepConnection {
  /** The PEP's id once it opened a client type; null before. */
  String pepId();

  /** Runs {@code task} on this connection's event loop. */
  void execute(Runnable task);

  /** Sends a Client-Close for every open client type, then closes. */
  void closeAll(ErrorCode code);

  /** Sends this PEP to another PDP: a PDP-Redirect for every open client type. */
  void redirectAll(InetSocketAddress to);

  /** Requests an asynchronous engine is still deciding (any thread). */
  int decisionsInFlight();

  /** Handles with request state, over every open client type (any thread). */
  int openHandles();

  /**
   * Decides every installed request of {@code type} again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  void reevaluate(int type, PolicyEngine engine);

  /**
   * As {@link #reevaluate(int, PolicyEngine)}, for the installed requests {@code which} selects.
   */
  void reevaluate(int type, PolicyEngine engine, Predicate<PolicyRequest> which);

  /** Asks the PEP to resend its request state for {@code type} (SSQ). */
  void synchronize(int type);
}
