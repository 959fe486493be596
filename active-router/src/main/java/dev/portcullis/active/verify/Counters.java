package dev.portcullis.active.verify;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Packets counted by outcome; cheap to bump from many threads, allocation-free. */
public final class Counters {
  private final LongAdder[] counts = new LongAdder[Outcome.values().length];

  public Counters() {
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  public void count(Outcome o) {
    counts[o.ordinal()].increment();
  }

  public long get(Outcome o) {
    return counts[o.ordinal()].sum();
  }

  /** Every drop, whatever the reason. */
  public long drops() {
    long n = 0;
    for (Outcome o : Outcome.values()) {
      if (o.isDrop()) {
        n += get(o);
      }
    }
    return n;
  }

  /** The non-zero counts, in declaration order. */
  public Map<Outcome, Long> snapshot() {
    Map<Outcome, Long> m = new EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      long n = get(o);
      if (n != 0) {
        m.put(o, n);
      }
    }
    return m;
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
