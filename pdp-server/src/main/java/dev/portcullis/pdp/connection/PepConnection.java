package dev.portcullis.pdp.connection;

import dev.portcullis.cops.ErrorCode;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.net.InetSocketAddress;
import java.util.function.Predicate;

/**
 * One PEP's connection as the server sees it: what a policy change, a drain, a fleet hand-over or a
 * shutdown does to it. {@code PdpStateMachine} is the one implementation; the server holds its
 * connections by this interface, so {@link PdpContext} does not name the class that calls it.
 * Everything but {@link #execute}, {@link #pepId} and the counts runs on the connection's event
 * loop: callers wrap it in {@code execute}.
 */
public interface PepConnection {
  /** The PEP's id once it opened a client type; null before. */
  public String pepId();

  /** Runs {@code task} on this connection's event loop. */
  public void execute(Runnable task);

  /** Sends a Client-Close for every open client type, then closes. */
  public void closeAll(ErrorCode code);

  /** Sends this PEP to another PDP: a PDP-Redirect for every open client type. */
  public void redirectAll(InetSocketAddress to);

  /** Requests an asynchronous engine is still deciding (any thread). */
  public int decisionsInFlight();

  /** Handles with request state, over every open client type (any thread). */
  public int openHandles();

  /**
   * Decides every installed request of {@code type} again with {@code engine} and sends an
   * unsolicited DEC for each whose decision changed.
   */
  public void reevaluate(int type, PolicyEngine engine);

  /**
   * As {@link #reevaluate(int, PolicyEngine)}, for the installed requests {@code which} selects.
   */
  public void reevaluate(int type, PolicyEngine engine, Predicate<PolicyRequest> which);

  /**
   * What an operator sees of this connection, made on its event loop (any thread may ask): with at
   * most {@code most} of its installed decisions when {@code decisions}, only those of {@code
   * subject} when it is not null.
   */
  public java.util.concurrent.CompletableFuture<PepView> view(
      boolean decisions, String subject, int most);

  /** Asks the PEP to resend its request state for {@code type} (SSQ). */
  public void synchronize(int type);
}
