package dev.portcullis.pep.proxy;

import dev.portcullis.support.AcceptFailures;
import dev.portcullis.support.Binding;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.LogSummary;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's listening side: binds each listener, holds it to its {@code max-connections}, puts
 * the idle watch on every accepted connection, terminates TLS where configured, and hands each
 * connection on with its subject (the client certificate's CN, or the address mapping's).
 */
final class ProxyListeners {
  private static final Logger log = LoggerFactory.getLogger(ProxyListeners.class);

  /** Where an accepted connection goes once its subject is known (null: none). */
  interface Arrivals {
    void arrived(ProxyConfig.Listener l, SocketChannel client, String subject);
  }

  private final EventLoopGroup loops;
  private final Transport transport;
  private final ProxyCounters counters;
  private final Arrivals arrivals;
  private final Map<String, AtomicInteger> open = new ConcurrentHashMap<>();
  private final Map<String, SslContext> upstreamTls = new ConcurrentHashMap<>();

  /**
   * TLS refusals an outsider causes at will: the first of a kind a minute logged, the rest counted.
   */
  private final LogSummary tlsRefusals;

  private final Clock clock;

  ProxyListeners(
      EventLoopGroup loops,
      Transport transport,
      ProxyCounters counters,
      Arrivals arrivals,
      Clock clock) {
    this.clock = clock;
    this.tlsRefusals = new LogSummary(log, "TLS refusals", Duration.ofMinutes(1), clock);
    this.loops = loops;
    this.transport = transport;
    this.counters = counters;
    this.arrivals = arrivals;
  }

  /** The TLS context towards {@code listener}'s upstream, or null for plain TCP. */
  SslContext upstreamTls(String listener) {
    return upstreamTls.get(listener);
  }

  /** Binds {@code l}; its channel, or an IllegalStateException naming the address. */
  Channel bind(ProxyConfig.Listener l) throws InterruptedException {
    SslContext tls = ProxyTls.server(l);
    SslContext toUpstream = ProxyTls.upstream(l);
    if (toUpstream != null) {
      upstreamTls.put(l.name(), toUpstream);
    }
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loops)
            .channel(transport.serverChannel())
            .handler(new AcceptFailures("proxy " + l.name(), clock))
            .childOption(ChannelOption.AUTO_READ, false) // nothing is read before the decision
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            // No TCP_NODELAY option: Netty's socket channels set it when created (on every
            // platform but Android), and setting it again was a second setsockopt per socket. A
            // proxied connection costs the proxy's loop 47 system calls with a decision, 42 on a
            // reused grant, against HAProxy's 25 (perf, docs/pep-proxy.md); the difference is
            // Netty's own (addresses, SO_LINGER and SO_SNDBUF reads, epoll changes).
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (!admit(l, ch)) {
                      return;
                    }
                    IdleCut.install(ch, l, counters);
                    if (tls == null) {
                      counters.accepted.incrementAndGet();
                      arrivals.arrived(l, ch, l.subject(ch.remoteAddress().getAddress()));
                    } else {
                      ProxyTls.terminate(
                          l, ch, tls, counters, tlsRefusals, cn -> arrivals.arrived(l, ch, cn));
                    }
                  }
                });
    try {
      Channel c = Binding.bind(b, l.listen(), "listener " + l.name());
      log.info(
          "proxy listener {} on {} in front of {} (service {}, {} access)",
          l.name(),
          HostPort.of((InetSocketAddress) c.localAddress()),
          HostPort.of(l.upstream()),
          l.service(),
          l.access().name().toLowerCase(Locale.ROOT));
      return c;
    } catch (BindException e) {
      // still a BindException in the chain: the address to fix (exit 2), named with the listener
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /**
   * Counts the connection against the listener's max-connections (a flood of connections, each a
   * decision at the PDP, must not exhaust the proxy's descriptors); false: closed at once.
   */
  private boolean admit(ProxyConfig.Listener l, SocketChannel ch) {
    AtomicInteger n = open.computeIfAbsent(l.name(), k -> new AtomicInteger());
    if (n.incrementAndGet() > l.maxConnections()) {
      n.decrementAndGet();
      counters.accepted.incrementAndGet();
      if (counters.overLimit.getAndIncrement() == 0) {
        log.warn(
            "proxy {}: {} connections open (max-connections): further ones are closed at once",
            l.name(),
            l.maxConnections());
      }
      ch.close();
      return false;
    }
    ch.closeFuture().addListener(f -> n.decrementAndGet());
    return true;
  }

  /** Logs what the refusal summaries held back (at stop). */
  void flush() {
    tlsRefusals.flush();
  }
}
