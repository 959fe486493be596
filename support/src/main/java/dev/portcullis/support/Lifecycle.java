package dev.portcullis.support;

import java.util.concurrent.CompletableFuture;

/**
 * The life every Portcullis server shares: the PDP, the enforcing proxy, the tunnel agent, the
 * active router, the Authorization and Code Servers and the metrics endpoint (after
 * tinyradius-netty's {@code RadiusLifecycle}: readiness, {@code closeAsync}, {@code close}).
 *
 * <p>Starting binds at once: a server's constructor or static {@code start} returns with every
 * listener bound, or throws an exception that names the address, before anything is served (a port
 * in use is known before a policy is loaded, and a failed start leaves nothing running). What may
 * come later is readiness: the proxy and the tunnel agent serve once their PDP has accepted their
 * PEP. {@link #ready()} completes the first time the server serves; {@link #isReady()} says whether
 * it serves now (a proxy whose PDP has gone does not, a draining PDP does not). Tests and launchers
 * wait on {@link #ready()} rather than polling.
 */
public interface Lifecycle extends AutoCloseable {

  /** Completes the first time this server serves; stays incomplete if it never does. */
  CompletableFuture<Void> ready();

  /**
   * Whether it serves now: ready, and not draining, stopping or cut off from what it needs. By
   * default: ready and not stopped, for a server that serves from the moment it is bound.
   */
  default boolean isReady() {
    return ready().isDone() && !stopped().isDone();
  }

  /**
   * Completes once the server has stopped: closed, or stopped by itself (an audit log it cannot
   * write). Never completes exceptionally.
   */
  CompletableFuture<Void> stopped();

  /** Stops, waiting until it has; again is a no-op. Never throws for a server that stops. */
  @Override
  void close();

  /**
   * Starts {@link #close} on a thread of its own and returns {@link #stopped()}: for an event-loop
   * thread or a signal handler, which must not block on the server's own threads.
   */
  default CompletableFuture<Void> closeAsync() {
    CompletableFuture<Void> stopped = stopped();
    if (!stopped.isDone()) {
      Thread t = new Thread(this::close, "portcullis-" + getClass().getSimpleName() + "-close");
      t.setDaemon(false);
      t.start();
    }
    return stopped;
  }

  /**
   * A server that serves from the moment it is bound (the router, the Authorization and Code
   * Servers, the metrics endpoint): ready once constructed; its {@link #close} ends with {@link
   * #stoppedNow}.
   */
  abstract class Bound implements Lifecycle {
    private final CompletableFuture<Void> ready = CompletableFuture.completedFuture(null);
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    @Override
    public final CompletableFuture<Void> ready() {
      return ready;
    }

    @Override
    public final CompletableFuture<Void> stopped() {
      return stopped;
    }

    /** The last step of {@link #close}: whoever waits on {@link #stopped()} goes on. */
    protected final void stoppedNow() {
      stopped.complete(null);
    }
  }
}
