package dev.portcullis.support;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The connection slots of an HTTP server (the metrics and health endpoint with the PCMM gates API,
 * the Authorization and Code Servers): at most {@code max} connections, {@code perAddress} from one
 * address, and no address can starve the others (docs/security.md, principle 12). When a new
 * connection finds its address's share or the whole server full, the oldest <em>idle</em>
 * connection (one whose request is not being served) of that address, or of the address holding the
 * most, is closed to make room; only when none is idle is the new one refused. So 10,000 idle
 * connections from one address cost it its own slots and nobody else theirs, and a health probe
 * gets in even from the flooding address. Each refusal and eviction is counted.
 *
 * <p>One lock, taken at each accept and each close, never across I/O (a close is only scheduled).
 */
public final class ConnectionSlots {
  private static final AttributeKey<Slot> SLOT = AttributeKey.valueOf("portcullis.slot");

  /** A connection's slot; {@code serving} while a request of its is being answered. */
  private static final class Slot {
    final Channel channel;
    final InetAddress from;
    volatile boolean serving;

    Slot(Channel channel, InetAddress from) {
      this.channel = channel;
      this.from = from;
    }
  }

  private final int max;
  private final int perAddress;
  private final Map<InetAddress, ArrayDeque<Slot>> byAddress = new HashMap<>();
  private int open;

  /** Connections refused (none idle to make room for them). */
  public final LongAdder refused = new LongAdder();

  /** Idle connections closed to make room for new ones. */
  public final LongAdder evicted = new LongAdder();

  public ConnectionSlots(int max, int perAddress) {
    if (max < 1 || perAddress < 1 || perAddress > max) {
      throw new IllegalArgumentException(
          "connection slots: " + max + " in all, " + perAddress + " per address");
    }
    this.max = max;
    this.perAddress = perAddress;
  }

  /**
   * Takes a slot for {@code ch}, just accepted: true, and the slot is given back when it closes;
   * false, and {@code ch} closed, when no idle connection could make room.
   */
  public boolean admit(Channel ch) {
    InetAddress from = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    Slot slot = new Slot(ch, from);
    Slot out = null;
    boolean admitted;
    synchronized (this) {
      ArrayDeque<Slot> mine = byAddress.get(from);
      int held = mine == null ? 0 : mine.size();
      if (held >= perAddress) {
        out = oldestIdle(mine);
      } else if (open >= max) {
        out = oldestIdle(largest());
      }
      admitted = held < perAddress && open < max || out != null;
      if (out != null) {
        remove(out);
        evicted.increment();
      }
      if (admitted) {
        byAddress.computeIfAbsent(from, a -> new ArrayDeque<>()).addLast(slot);
        open++;
      } else {
        refused.increment();
      }
    }
    if (out != null) {
      out.channel.close();
    }
    if (!admitted) {
      ch.close();
      return false;
    }
    ch.attr(SLOT).set(slot);
    ch.closeFuture().addListener(f -> release(slot));
    return true;
  }

  /**
   * {@code ch}'s request is being answered ({@code true}: it is not idle, never closed to make
   * room), or has been ({@code false}: idle again, between requests).
   */
  public static void serving(Channel ch, boolean serving) {
    Slot s = ch.attr(SLOT).get();
    if (s != null) {
      s.serving = serving;
    }
  }

  /** Connections holding a slot now. */
  public synchronized int open() {
    return open;
  }

  private synchronized void release(Slot s) {
    remove(s);
  }

  private void remove(Slot s) {
    ArrayDeque<Slot> d = byAddress.get(s.from);
    if (d != null && d.remove(s)) {
      open--;
      if (d.isEmpty()) {
        byAddress.remove(s.from);
      }
    }
  }

  private static Slot oldestIdle(ArrayDeque<Slot> d) {
    if (d == null) {
      return null;
    }
    for (Iterator<Slot> it = d.iterator(); it.hasNext(); ) {
      Slot s = it.next();
      if (!s.serving) {
        return s;
      }
    }
    return null;
  }

  private ArrayDeque<Slot> largest() {
    ArrayDeque<Slot> most = null;
    for (ArrayDeque<Slot> d : byAddress.values()) {
      if (most == null || d.size() > most.size()) {
        most = d;
      }
    }
    return most;
  }
}
