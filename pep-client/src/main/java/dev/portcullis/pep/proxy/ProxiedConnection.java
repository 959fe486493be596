package dev.portcullis.pep.proxy;

import io.netty.channel.Channel;

/** A proxied connection: the client's channel and, once allowed, the upstream's. */
final class ProxiedConnection {
  final String handle;
  final ProxyConfig.Listener listener;
  final Channel client;
  final String subject;
  volatile boolean asked; // a request state at the PDP (false: allowed under a cached grant)
  final long started = System.nanoTime();
  volatile Channel upstream;
  Relay toUpstream; // set and read on the client's event loop
  Relay toClient;
  // On the client's event loop: the PDP's Install has come (relaying may start once connected).
  boolean admitted;
  ProxySessions.Session session; // the MLS session the proxy carries for it, or null

  ProxiedConnection(
      String handle, ProxyConfig.Listener listener, Channel client, String subject, boolean asked) {
    this.handle = handle;
    this.subject = subject;
    this.listener = listener;
    this.client = client;
    this.asked = asked;
  }

  /** Cuts both sides at once (a revocation, the proxy stopping): nothing queued goes out. */
  void close() {
    client.close();
    Channel u = upstream;
    if (u != null) {
      u.close();
    }
  }
}
