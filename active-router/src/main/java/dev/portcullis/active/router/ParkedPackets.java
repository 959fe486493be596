package dev.portcullis.active.router;

import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Packets waiting for their code secret, at most {@value #MAX} at once across all codes: one queue
 * per pending fetch, handed back first-in first-out on the event loop when the fetch completes
 * (whether it brought the secret or not). A packet is parked once for its secret; if it finds the
 * secret still missing when handed back, it is not parked again. Event loop only.
 *
 * <p>Order within a code is kept: while a code has packets held, a fresh packet of that code is
 * {@linkplain #holdBehind held behind them} instead of being verified ahead of them. Without it, a
 * packet read between the fetch's completion (the secret now cached) and the hand-back task's turn
 * on the loop was verified and forwarded before the packets that came before it.
 */
final class ParkedPackets {
  /** Packets waiting at once, across all codes. */
  static final int MAX = 4096;

  /** What the handler does with a packet handed back. */
  interface Replay {
    /**
     * @param behind true: the packet was held only to keep its code's order, and is processed as if
     *     it had just arrived (it may be parked for its own secret); false: it waited for its
     *     secret and is not parked again
     */
    void accept(DatagramPacket packet, boolean behind);
  }

  /** A packet held, and whether only to keep its code's order. */
  private record Entry(DatagramPacket packet, boolean behind) {}

  /** One pending fetch's packets, of one code. */
  private record Held(int code, ArrayDeque<Entry> entries) {}

  private final EventLoop loop;
  private final Replay replay;
  private final Runnable drained;
  private final Map<CompletableFuture<?>, Held> queues = new IdentityHashMap<>();

  /** The newest queue of each code with packets held. */
  private final IntObjectMap<Held> byCode = new IntObjectHashMap<>();

  private int parked;

  /**
   * @param replay processes a packet handed back; the packet is released after it returns
   * @param drained runs after each queue is handed back (the handler flushes)
   */
  ParkedPackets(EventLoop loop, Replay replay, Runnable drained) {
    this.loop = loop;
    this.replay = replay;
    this.drained = drained;
  }

  /** True when no packet is held: a fresh packet needs no look at its code. */
  boolean isEmpty() {
    return parked == 0;
  }

  /**
   * Keeps {@code packet} (retained), of code {@code code}, until {@code arrival} completes; returns
   * false, keeping nothing, when the queue is full.
   */
  boolean park(DatagramPacket packet, int code, CompletableFuture<?> arrival) {
    if (parked >= MAX) {
      return false;
    }
    Held q = queues.get(arrival);
    if (q == null) {
      q = new Held(code, new ArrayDeque<>());
      queues.put(arrival, q);
      byCode.put(code, q);
      arrival.whenComplete((x, e) -> loop.execute(() -> handBack(arrival)));
    }
    add(q, packet, false);
    return true;
  }

  /**
   * Keeps {@code packet} (retained) behind the packets of its code already held, if there are any;
   * false, keeping nothing, when none are held or the queue is full.
   */
  boolean holdBehind(DatagramPacket packet, int code) {
    Held q = byCode.get(code);
    if (q == null || parked >= MAX) {
      return false;
    }
    add(q, packet, true);
    return true;
  }

  private void add(Held q, DatagramPacket packet, boolean behind) {
    parked++;
    q.entries.add(new Entry(packet.retain(), behind));
  }

  private void handBack(CompletableFuture<?> arrival) {
    Held q = queues.remove(arrival);
    if (byCode.get(q.code) == q) {
      byCode.remove(q.code);
    }
    for (Entry e = q.entries.poll(); e != null; e = q.entries.poll()) {
      parked--;
      try {
        replay.accept(e.packet, e.behind);
      } finally {
        e.packet.release();
      }
    }
    drained.run();
  }
}
