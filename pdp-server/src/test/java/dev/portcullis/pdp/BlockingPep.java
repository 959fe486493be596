package dev.portcullis.pdp;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessRequest;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;

/** A PEP written with a blocking socket: one message at a time, each wait bounded. */
final class BlockingPep implements AutoCloseable {
  private final Socket socket = new Socket();
  private final DataInputStream in;
  private final OutputStream out;
  private final int clientType;
  private final ArrayDeque<Decision> pushed = new ArrayDeque<>();

  BlockingPep(InetSocketAddress pdp, int clientType, String pepId) throws Exception {
    this.clientType = clientType;
    socket.connect(pdp, 5_000);
    socket.setTcpNoDelay(true);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
    send(ClientOpen.of(clientType, pepId));
    CopsMessage m = read(10_000);
    if (!(m instanceof ClientAccept)) {
      throw new AssertionError("expected a Client-Accept, got " + m);
    }
  }

  void send(CopsMessage m) throws IOException {
    out.write(CopsCodec.encode(m));
    out.flush();
  }

  /** The next message, waiting at most {@code millis}. */
  CopsMessage read(int millis) throws Exception {
    socket.setSoTimeout(millis);
    byte[] header = new byte[8];
    in.readFully(header);
    int length =
        ((header[4] & 0xff) << 24)
            | ((header[5] & 0xff) << 16)
            | ((header[6] & 0xff) << 8)
            | (header[7] & 0xff);
    byte[] all = new byte[length];
    System.arraycopy(header, 0, all, 0, 8);
    in.readFully(all, 8, length - 8);
    return CopsCodec.decode(all);
  }

  /**
   * The next unsolicited decision within {@code millis} (one that arrived while waiting for an
   * answer comes first), or null.
   */
  Decision pushed(int millis) throws Exception {
    if (!pushed.isEmpty()) {
      return pushed.poll();
    }
    long end = System.currentTimeMillis() + millis;
    while (true) {
      long left = end - System.currentTimeMillis();
      if (left <= 0) {
        return null;
      }
      try {
        if (read((int) left) instanceof Decision d) {
          if (!d.solicited()) {
            return d;
          }
          throw new AssertionError("a solicited decision nobody asked for: " + d);
        }
      } catch (SocketTimeoutException e) {
        return null;
      }
    }
  }

  /** The next Client-Close within {@code millis} (decisions before it are skipped). */
  ClientClose clientClose(int millis) throws Exception {
    long end = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < end) {
      if (read((int) Math.max(1, end - System.currentTimeMillis())) instanceof ClientClose c) {
        return c;
      }
    }
    throw new AssertionError("no Client-Close in " + millis + " ms");
  }

  /** Forgets the unsolicited decisions received so far. */
  void forgetPushed() {
    pushed.clear();
  }

  /**
   * Sends a request on {@code handle} and returns whether it was installed; unsolicited decisions
   * arriving meanwhile are kept for {@link #pushed}.
   */
  boolean ask(String handle, AccessRequest r) throws Exception {
    Handle h = Handle.of(handle);
    send(Request.of(clientType, h, new Context(Context.R_INCOMING, 0), r.toClientSI()));
    long end = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < end) {
      if (read((int) Math.max(1, end - System.currentTimeMillis())) instanceof Decision d) {
        if (d.solicited() && d.handle().equals(h)) {
          return installs(d);
        }
        if (!d.solicited()) {
          pushed.add(d);
        }
      }
    }
    throw new AssertionError("no decision for " + handle + " in 10 s");
  }

  static boolean installs(Decision d) {
    return d.decisions().get(0).flags().command() == DecisionCommand.INSTALL.code();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
