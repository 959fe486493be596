package dev.portcullis.support;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.channel.Channel;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Binding a listener, said one way by every server: a failure is a {@link BindException} naming the
 * address and what was to listen there, whatever the transport reported (NIO's {@code
 * BindException}, epoll's {@code bind(..) failed with error(-98)}), so a port in use is the same
 * mistake to fix, with the same exit code ({@link Cli}), everywhere.
 */
public final class Binding {
  private Binding() {}

  /**
   * Binds {@code b} to {@code address} and waits.
   *
   * @param what what listens there ({@code "metrics"}, {@code "router ar-1"}), or null for the
   *     server itself
   */
  public static Channel bind(AbstractBootstrap<?, ?> b, InetSocketAddress address, String what)
      throws BindException, InterruptedException {
    try {
      return b.bind(address).sync().channel();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw failed(address, what, e);
    }
  }

  /**
   * Fails with the {@link BindException} {@link #bind} would, before anything is made, if {@code
   * address} cannot be listened on now (a port in use, an address not of this host): a server
   * checks first, so that a start that cannot listen makes no PKI, store or audit log, and says the
   * port rather than what it would have met next. Port 0 (any free one) is not checked. The bind
   * itself stays the authority: the address may be taken between the two.
   */
  public static void checkFree(InetSocketAddress address, String what) throws BindException {
    if (address.getPort() == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true); // as the server's own socket: a port in TIME_WAIT is free
      probe.bind(address, 1);
    } catch (IOException e) {
      throw failed(address, what, e);
    }
  }

  /** The {@link BindException} for a listener that could not bind {@code address}. */
  public static BindException failed(InetSocketAddress address, String what, Throwable cause) {
    BindException be =
        new BindException(
            "cannot listen on "
                + HostPort.of(address)
                + (what == null ? "" : " for " + what)
                + ": "
                + inOurWords(cause));
    be.initCause(cause);
    return be;
  }

  /**
   * What the kernel said, in the words of the mistake to fix: epoll says {@code bind(..) failed
   * with error(-98): Address already in use}, NIO {@code Address already in use}.
   */
  private static String inOurWords(Throwable cause) {
    String m = Cli.message(cause);
    if (m.contains("Address already in use")) {
      return "the port is in use (another process listens there: another server, or this one"
          + " running already)";
    }
    if (m.contains("Cannot assign requested address")) {
      return "not an address of this host";
    }
    if (m.contains("Permission denied")) {
      return "permission denied (a port below 1024 needs privileges)";
    }
    return m;
  }
}
