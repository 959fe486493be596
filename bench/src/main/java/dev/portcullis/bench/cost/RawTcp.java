package dev.portcullis.bench.cost;

import dev.portcullis.support.Threads;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The baseline with no COPS at all: a TCP server that answers each {@link #REQUEST}-byte message
 * with a {@link #REPLY}-byte one, and clients that run the same shapes the COPS layers run (an
 * exchange standing for OPN/CAT, one for REQ/DEC), so the report shows what COPS itself adds.
 */
final class RawTcp implements AutoCloseable {
  /** About a REQ with the Portcullis access objects. */
  static final int REQUEST = 128;

  /** About a DEC. */
  static final int REPLY = 64;

  private final ServerSocket server;
  private final ExecutorService pool =
      Executors.newCachedThreadPool(Threads.daemon("raw-tcp-echo"));
  private final byte[] request = new byte[REQUEST];
  private final byte[] reply = new byte[REPLY];

  RawTcp() throws IOException {
    this(InetAddress.getLoopbackAddress());
  }

  /** A responder on {@code address}, in the calling thread's network namespace. */
  RawTcp(InetAddress address) throws IOException {
    server = new ServerSocket(0, 128, address);
    pool.execute(this::accept);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        pool.execute(() -> serve(s));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s) {
    byte[] in = new byte[REQUEST];
    byte[] out = new byte[REPLY];
    try (s;
        DataInputStream r = new DataInputStream(s.getInputStream());
        OutputStream w = s.getOutputStream()) {
      while (true) {
        r.readFully(in);
        w.write(out);
      }
    } catch (IOException e) {
      // the client closed: done
    }
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** A connection, with its streams. */
  final class Conn implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final OutputStream out;

    /** A connection to the responder through {@code via} (its own address: directly). */
    Conn(InetSocketAddress via) throws IOException {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(via, 5000);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    void exchange() throws IOException {
      out.write(request);
      in.readFully(reply);
    }

    /** {@code n} requests written ahead, {@code window} at a time, then their replies read. */
    void stream(int n, int window) throws IOException {
      byte[] burst = new byte[REQUEST * window];
      byte[] replies = new byte[REPLY * window];
      for (int done = 0; done < n; done += window) {
        out.write(burst);
        in.readFully(replies);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    pool.shutdownNow();
  }
}
