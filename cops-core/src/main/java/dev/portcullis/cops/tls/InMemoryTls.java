package dev.portcullis.cops.tls;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * Runs a TLS handshake between two {@link SSLEngine}s in memory, without sockets: for tests that
 * check certificates and engines, and for benchmarks that time the handshake's cryptography apart
 * from the network. Bounded: a handshake that stops making progress fails instead of spinning.
 */
public final class InMemoryTls {
  private static final int MAX_STEPS = 200;

  private InMemoryTls() {}

  /**
   * Hands records between {@code client} and {@code server} until both finish the handshake.
   *
   * @throws SSLException if either side rejects the other, or the handshake does not finish
   */
  public static void handshake(SSLEngine client, SSLEngine server) throws SSLException {
    int size =
        Math.max(
            client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(4 * size);
    ByteBuffer toClient = ByteBuffer.allocate(4 * size);
    ByteBuffer app = ByteBuffer.allocate(4 * size);
    ByteBuffer empty = ByteBuffer.allocate(0);
    client.beginHandshake();
    server.beginHandshake();
    for (int i = 0; i < MAX_STEPS; i++) {
      step(client, empty, toServer, toClient, app);
      step(server, empty, toClient, toServer, app);
      if (done(client) && done(server)) {
        // Deliver what follows the handshake (TLS 1.3 session tickets), so a later handshake
        // from the same client context can resume. BoringSSL (the openssl and conscrypt engines)
        // holds a TLS 1.3 server's tickets back until it writes application data, so each side
        // sends one byte, as the OPN and CAT that follow a COPS handshake do: with the handshake
        // alone, no openssl client ever had a ticket to offer.
        ByteBuffer one = ByteBuffer.allocate(1);
        step(client, one, toServer, toClient, app);
        step(server, one.clear(), toClient, toServer, app);
        step(client, empty, toServer, toClient, app);
        return;
      }
    }
    throw new SSLException(
        "handshake did not finish in "
            + MAX_STEPS
            + " steps (client "
            + client.getHandshakeStatus()
            + ", server "
            + server.getHandshakeStatus()
            + ")");
  }

  private static boolean done(SSLEngine e) {
    HandshakeStatus h = e.getHandshakeStatus();
    return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
  }

  /** Lets {@code e} write all it has ({@code data} included), then read all that waits for it. */
  private static void step(
      SSLEngine e, ByteBuffer data, ByteBuffer out, ByteBuffer in, ByteBuffer app)
      throws SSLException {
    for (int n = 0; n < MAX_STEPS; n++) {
      SSLEngineResult r = e.wrap(data, out);
      runTasks(e);
      if (r.bytesProduced() == 0) {
        break;
      }
    }
    in.flip();
    for (int n = 0; n < MAX_STEPS && in.hasRemaining(); n++) {
      SSLEngineResult r = e.unwrap(in, app);
      runTasks(e);
      app.clear();
      if (r.bytesConsumed() == 0) {
        break;
      }
    }
    in.compact();
  }

  private static void runTasks(SSLEngine e) {
    Runnable task;
    while ((task = e.getDelegatedTask()) != null) {
      task.run();
    }
  }
}
