package dev.portcullis.active.source;

import dev.portcullis.active.packet.PacketView;
import dev.portcullis.support.Threads;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A destination host for demos and tests: receives active packets on UDP and keeps the clear
 * payloads it got (as text), counting the rest.
 */
public final class PacketSink implements AutoCloseable {
  private final DatagramSocket socket;
  private final Thread thread;
  private final List<String> payloads = new CopyOnWriteArrayList<>();
  private final AtomicLong received = new AtomicLong();
  private final boolean keepPayloads;
  private volatile long firstNanos;
  private volatile long lastNanos;

  /** A sink that keeps the clear payloads it receives. */
  public PacketSink(InetSocketAddress address) throws SocketException {
    this(address, true);
  }

  /** A sink that keeps payloads or, for throughput runs, only counts. */
  public PacketSink(InetSocketAddress address, boolean keepPayloads) throws SocketException {
    this.keepPayloads = keepPayloads;
    this.socket = new DatagramSocket(address);
    socket.setReceiveBufferSize(4 << 20);
    this.thread = Threads.start("packet-sink", this::run);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  private void run() {
    byte[] buf = new byte[65_535];
    PacketView v = new PacketView();
    while (!socket.isClosed()) {
      DatagramPacket p = new DatagramPacket(buf, buf.length);
      try {
        socket.receive(p);
      } catch (IOException e) {
        return; // closed
      }
      long t = System.nanoTime();
      if (received.incrementAndGet() == 1) {
        firstNanos = t;
      }
      lastNanos = t;
      if (keepPayloads
          && v.wrap(ByteBuffer.wrap(buf), 0, p.getLength()) == null
          && !v.encrypted()) {
        payloads.add(new String(buf, v.payloadOffset(), v.payloadLength(), StandardCharsets.UTF_8));
      }
    }
  }

  /** Datagrams received. */
  public long received() {
    return received.get();
  }

  /** Nanoseconds from the first datagram received to the last. */
  public long spanNanos() {
    return lastNanos - firstNanos;
  }

  /** Forgets what it received (for the next trial). */
  public void reset() {
    received.set(0);
    payloads.clear();
  }

  /** The clear payloads received, in order. */
  public List<String> payloads() {
    return List.copyOf(payloads);
  }

  @Override
  public void close() {
    socket.close();
  }
}
