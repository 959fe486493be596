package dev.portcullis.active.service.builtin;

import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts packets and payload bytes per flow (user, code, source, destination); forwards all. */
public final class PacketCounter implements ActiveService {
  private final Map<String, LongAdder[]> flows = new ConcurrentHashMap<>();

  @Override
  public Verdict process(PacketContext p) {
    String flow =
        Long.toUnsignedString(p.user())
            + " "
            + p.source()
            + "->"
            + p.destination()
            + " Ci="
            + Integer.toUnsignedString(p.code());
    LongAdder[] c =
        flows.computeIfAbsent(flow, k -> new LongAdder[] {new LongAdder(), new LongAdder()});
    c[0].increment();
    c[1].add(p.payloadLength());
    return Verdict.FORWARD;
  }

  /** Packets seen per flow. */
  public Map<String, Long> packets() {
    Map<String, Long> m = new TreeMap<>();
    flows.forEach((k, v) -> m.put(k, v[0].sum()));
    return m;
  }

  @Override
  public String toString() {
    return "packet-counter " + packets();
  }
}
