package dev.portcullis.bench;

import dev.portcullis.support.Threads;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * An echo service: each connection's bytes back until it ends, every connection on one selector
 * thread, as an event-driven server (nginx, HAProxy) serves them. Reads go through one buffer; a
 * connection that cannot take all of an echo keeps the rest and is not read again until it has
 * (back-pressure), so one buffer per connection exists only while it lags.
 *
 * <p>{@link FirewallBench}'s services ran a thread per connection until 2026-11-29: ending 1,000
 * flows then woke 1,000 threads in the bench's JVM, on the cores the firewall and the client's
 * observer share, and the bench measured their wake-ups (the firewall's {@code ss -K} 142-213 ms,
 * 15 ms with one thread watching all 1,000: docs/host-firewall.md).
 */
final class EchoService implements AutoCloseable {
  private final ServerSocketChannel listening;
  private final Selector selector;
  private final ByteBuffer reads = ByteBuffer.allocateDirect(1 << 16);

  private EchoService(ServerSocketChannel listening) throws IOException {
    this.listening = listening;
    this.selector = Selector.open();
    listening.configureBlocking(false);
    listening.register(selector, SelectionKey.OP_ACCEPT);
  }

  /** Serves {@code listening} (bound already) on a thread named {@code name} until closed. */
  static EchoService start(ServerSocketChannel listening, String name) throws IOException {
    EchoService s = new EchoService(listening);
    Threads.start(name, s::serve);
    return s;
  }

  private void serve() {
    try {
      while (selector.isOpen()) {
        selector.select(200);
        for (SelectionKey k : selector.selectedKeys()) {
          try {
            if (k.isAcceptable()) {
              SocketChannel c = listening.accept();
              if (c != null) {
                c.configureBlocking(false);
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.register(selector, SelectionKey.OP_READ);
              }
            } else {
              echo(k);
            }
          } catch (IOException ended) {
            k.channel().close(); // by the client, or cut by the firewall
          }
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException | ClosedSelectorException closed) {
      // closed: the bench is over
    }
  }

  /** Writes what a lagging connection kept, or reads and echoes what came. */
  private void echo(SelectionKey k) throws IOException {
    SocketChannel c = (SocketChannel) k.channel();
    ByteBuffer kept = (ByteBuffer) k.attachment();
    if (kept != null) {
      c.write(kept);
      if (!kept.hasRemaining()) {
        k.attach(null);
        k.interestOps(SelectionKey.OP_READ);
      }
      return;
    }
    reads.clear();
    if (c.read(reads) < 0) {
      c.close();
      return;
    }
    reads.flip();
    c.write(reads);
    if (reads.hasRemaining()) {
      k.attach(ByteBuffer.allocate(reads.remaining()).put(reads).flip());
      k.interestOps(SelectionKey.OP_WRITE);
    }
  }

  @Override
  public void close() throws IOException {
    selector.close();
    listening.close();
  }
}
