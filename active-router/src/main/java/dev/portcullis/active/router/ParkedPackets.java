package dev.portcullis.active.router;

import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramPacket;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Packets waiting for their code secret, at most {@value #MAX} at once across all codes: one queue
 * per pending fetch, handed back first-in first-out on the event loop when the fetch completes
 * (whether it brought the secret or not). A packet is parked once; if it finds the secret still
 * missing when handed back, it is not parked again. Event loop only.
 */
final class ParkedPackets {
  /** Packets waiting at once, across all codes. */
  static final int MAX = 4096;

  private final EventLoop loop;
  private final Consumer<DatagramPacket> replay;
  private final Runnable drained;
  private final Map<CompletableFuture<?>, ArrayDeque<DatagramPacket>> queues =
      new IdentityHashMap<>();
  private int parked;

  /**
   * @param replay processes a packet handed back (marked so it is not parked twice); the packet is
   *     released after it returns
   * @param drained runs after each queue is handed back (the handler flushes)
   */
  ParkedPackets(EventLoop loop, Consumer<DatagramPacket> replay, Runnable drained) {
    this.loop = loop;
    this.replay = replay;
    this.drained = drained;
  }

  /**
   * Keeps {@code packet} (retained) until {@code arrival} completes; returns false, keeping
   * nothing, when the queue is full.
   */
  boolean park(DatagramPacket packet, CompletableFuture<?> arrival) {
    if (parked >= MAX) {
      return false;
    }
    ArrayDeque<DatagramPacket> q = queues.get(arrival);
    if (q == null) {
      q = new ArrayDeque<>();
      queues.put(arrival, q);
      arrival.whenComplete((x, e) -> loop.execute(() -> handBack(arrival)));
    }
    parked++;
    q.add(packet.retain());
    return true;
  }

  private void handBack(CompletableFuture<?> arrival) {
    ArrayDeque<DatagramPacket> q = queues.remove(arrival);
    for (DatagramPacket p = q.poll(); p != null; p = q.poll()) {
      parked--;
      try {
        replay.accept(p);
      } finally {
        p.release();
      }
    }
    drained.run();
  }
}
