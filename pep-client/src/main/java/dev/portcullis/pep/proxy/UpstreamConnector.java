package dev.portcullis.pep.proxy;

import dev.portcullis.support.LogSummary;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's side towards the services: a connection to the upstream once a client's connection is
 * allowed (TLS to it where the listener says, the idle cut, the relays), or, when the upstream
 * cannot be reached, the client closed, counted, and logged once per listener a minute.
 */
final class UpstreamConnector {
  // The proxy's logger: what an operator configures and greps for the proxy says it.
  private static final Logger log = LoggerFactory.getLogger(UpstreamConnector.class);

  private final Transport transport;
  private final ProxyListeners listeners;
  private final ProxyCounters counters;
  private final ProxyAudit audit;

  // Every client connection finds a dead upstream dead again: the first per listener a minute.
  private final LogSummary upstreamFailures;

  UpstreamConnector(
      Transport transport,
      ProxyListeners listeners,
      ProxyCounters counters,
      ProxyAudit audit,
      Clock clock) {
    this.upstreamFailures =
        new LogSummary(log, "unreachable upstreams", Duration.ofMinutes(1), clock);
    this.transport = transport;
    this.listeners = listeners;
    this.counters = counters;
    this.audit = audit;
  }

  /**
   * Connects {@code conn}'s upstream on its client's event loop (called there); once connected (and
   * the client still there and not cut) and {@link ProxiedConnection#admitted}, relays both ways
   * and reads again. A connection started before its decision ({@code
   * upstream-connect="with-request"}) waits, connected and reading nothing from either side, for
   * {@link #admit}; a denial closes the client, and with it this upstream, with no byte relayed.
   */
  void connect(ProxiedConnection conn) {
    Channel client = conn.client;
    if (!client.isActive()) {
      return;
    }
    new Bootstrap()
        .group(client.eventLoop()) // both sides on one loop: no hand-over between threads
        .channel(transport.socketChannel())
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
        // TCP_NODELAY: Netty's socket channels set it when created; setting it again here was a
        // second setsockopt per socket (ProxyListeners says what the syscalls per connection are)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                SslContext tls = listeners.upstreamTls(conn.listener.name());
                if (tls != null) {
                  InetSocketAddress u = conn.listener.upstream();
                  ch.pipeline()
                      .addLast(
                          tls.newHandler(ch.alloc(), u.getAddress().getHostAddress(), u.getPort()));
                }
                IdleCut.install(ch, conn.listener, counters);
                conn.toClient = new Relay(client);
                ch.pipeline().addLast(conn.toClient);
              }
            })
        .connect(conn.listener.upstream())
        .addListener(
            (ChannelFuture f) -> {
              // A local upstream on an ephemeral port with nothing listening can be "reached" by
              // TCP connecting to itself (the kernel picks that very port as the source): the
              // proxy would be talking to itself. Nothing listens there: unreachable.
              String why =
                  !f.isSuccess()
                      ? f.cause().getMessage()
                      : f.channel().localAddress().equals(f.channel().remoteAddress())
                          ? "connected to itself: nothing listens there"
                          : null;
              if (why != null) {
                counters.upstreamFailed.incrementAndGet();
                upstreamFailures.warn(
                    conn.listener.name(),
                    "proxy {}: {}: upstream {} unreachable: {}",
                    conn.listener.name(),
                    conn.handle,
                    conn.listener.upstream(),
                    why);
                f.channel().close();
                client.close();
                return;
              }
              Channel upstream = f.channel();
              conn.upstream = upstream;
              upstream.closeFuture().addListener(x -> Relay.flushThenClose(client));
              if (!client.isActive() || conn.cut) {
                upstream.close(); // closed or revoked meanwhile
                return;
              }
              if (conn.admitted) {
                relay(conn);
              }
            });
  }

  /**
   * The PDP's Install for {@code conn} (on its client's event loop): relaying starts now if its
   * upstream is connected, else when it is.
   */
  void admit(ProxiedConnection conn) {
    conn.admitted = true;
    Channel upstream = conn.upstream;
    if (upstream != null && upstream.isActive() && conn.client.isActive()) {
      relay(conn);
    }
  }

  /** Both sides connected and the connection admitted: relay both ways, read again. */
  private void relay(ProxiedConnection conn) {
    Channel client = conn.client;
    Channel upstream = conn.upstream;
    conn.toUpstream = new Relay(upstream);
    client.pipeline().addLast(conn.toUpstream);
    audit.opened(conn.listener.name(), conn.handle, (InetSocketAddress) upstream.localAddress());
    if (client.pipeline().get(ProxyTls.HELD) instanceof ProxyTls.Held h) {
      h.release(client.pipeline().context(ProxyTls.HELD), upstream);
    }
    client.config().setAutoRead(true);
    upstream.config().setAutoRead(true);
  }
}
