package dev.portcullis.pep.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import java.util.concurrent.RejectedExecutionException;

/**
 * A proxied connection: the client's channel and, once allowed, the upstream's. Each field has one
 * owner ({@link Owners}): the final ones are set before the connection is shared; the channel side
 * belongs to the client's event loop; what the proxy's books keep of it (its request state, the
 * grant it stands on, its MLS session) belongs to the books' loop. No field is guarded by a lock,
 * and none is written by two threads.
 */
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

  final long started = System.nanoTime();

  // The client's event loop: the channel side.
  volatile Channel upstream; // set there once connected; read anywhere (PepProxy#buffered)
  Relay toUpstream;
  Relay toClient;
  boolean admitted; // the PDP's Install (or a grant) came: relaying starts once connected
  boolean cut; // ended by the proxy (a revocation, the PDP's loss, stopping), not by a side

  // The books' loop: what the proxy keeps of it.
  boolean asked; // a request state at the PDP (false: admitted on a grant, not asked for since)
  ProxySessions.Session session; // the MLS session the proxy carries for it, or null
  boolean endSeen; // its end was seen (GrantAnchors: no grant anchors on it after)
  GrantAnchors.Anchor anchor; // the reused grant it was admitted on, or null
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

  /** Runs {@code task} on the client's event loop, which owns the channel side. */
  void onClientLoop(Runnable task) {
    Owners.run(client.eventLoop(), task);
  }

  /**
   * Cuts both sides (a revocation, the proxy stopping), from any thread: nothing queued goes out
   * either way, not even what the kernel holds. A plain close sends its FIN only after the socket's
   * send queue, up to a send buffer of bytes relayed before the cut, which a client that reads
   * slowly would go on receiving after its access was revoked (and the service the client's last
   * bytes); an abortive close (SO_LINGER 0) discards the queue and resets the peer. The client is
   * cut on its loop; its upstream just after, as a task behind it, so that a mass revocation read
   * in one batch cuts every client before it spends the same again on the upstreams (the client's
   * side closed, nothing new is read from it meanwhile; ProxyRevocationTest bounds what the service
   * gets after the cut).
   */
  void close() {
    if (!Owners.run(client.eventLoop(), this::cutNow)) {
      client.close(); // its loop is stopping: closed as it stops, the plain way
    }
  }

  private void cutNow() {
    cut = true;
    abort(client);
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
