package dev.portcullis.support;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.channel.Channel;
import java.net.BindException;
import java.net.InetSocketAddress;

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

  /** The {@link BindException} for a listener that could not bind {@code address}. */
  public static BindException failed(InetSocketAddress address, String what, Throwable cause) {
    BindException be =
        new BindException(
            "cannot listen on "
                + HostPort.of(address)
                + (what == null ? "" : " for " + what)
                + ": "
                + Cli.message(cause));
    be.initCause(cause);
    return be;
  }
}
