package dev.portcullis.pep.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import java.util.concurrent.RejectedExecutionException;

/** A proxied connection: the client's channel and, once allowed, the upstream's. */
final class ProxiedConnection {
  final String handle;
  final ProxyConfig.Listener listener;
  final Channel client;
  final String subject;

  /**
   * What a grant from this connection's decision covers: its listener and the client's address (a
   * rule may decide on the address: a grant from one address admits nothing from another).
   */
  final String scope;

  volatile boolean asked; // a request state at the PDP (false: allowed under a cached grant)
  final long started = System.nanoTime();
  volatile Channel upstream;
  Relay toUpstream; // set and read on the client's event loop
  Relay toClient;
  // On the client's event loop: the PDP's Install has come (relaying may start once connected).
  boolean admitted;
  ProxySessions.Session session; // the MLS session the proxy carries for it, or null
  volatile boolean cut; // ended by the proxy (a revocation, the PDP's loss, stopping), not a side
  boolean endSeen; // under GrantAnchors' lock: its end was seen there (no grant anchors it after)
  GrantAnchors.Anchor anchor; // under GrantAnchors' lock: the grant it was admitted on, or null
  String grant; // admitted on a reused grant: that grant's request state (handle); set once

  ProxiedConnection(
      String handle, ProxyConfig.Listener listener, Channel client, String subject, boolean asked) {
    this.handle = handle;
    this.subject = subject;
    this.listener = listener;
    this.client = client;
    this.asked = asked;
    this.scope =
        listener.name()
            + " from "
            + (client.remoteAddress() instanceof java.net.InetSocketAddress a
                ? a.getAddress().getHostAddress()
                : String.valueOf(client.remoteAddress()));
  }

  /**
   * Cuts both sides (a revocation, the proxy stopping): nothing queued goes out either way, not
   * even what the kernel holds. A plain close sends its FIN only after the socket's send queue, up
   * to a send buffer of bytes relayed before the cut, which a client that reads slowly would go on
   * receiving after its access was revoked (and the service the client's last bytes); an abortive
   * close (SO_LINGER 0) discards the queue and resets the peer. The client is cut at once; its
   * upstream just after, as a task on the upstream's loop, so that a mass revocation read in one
   * batch cuts every client before it spends the same again on the upstreams (the client's side
   * closed, nothing new is read from it meanwhile; ProxyRevocationTest bounds what the service gets
   * after the cut).
   */
  void close() {
    cut = true;
    if (client.eventLoop().inEventLoop()) {
      abort(client);
    } else {
      later(client);
    }
    Channel u = upstream;
    if (u != null) {
      later(u);
    }
  }

  private static void later(Channel ch) {
    try {
      ch.eventLoop().execute(() -> abort(ch));
    } catch (RejectedExecutionException e) {
      ch.close(); // its loop is stopping: closed as it stops, the plain way
    }
  }

  private static void abort(Channel ch) {
    if (ch.isOpen()) {
      try {
        ch.config().setOption(ChannelOption.SO_LINGER, 0);
      } catch (ChannelException e) {
        // closed under us: nothing queued to discard
      }
    }
    ch.close();
  }
}
