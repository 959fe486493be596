package dev.portcullis.pdp.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Per-session timings taken on the PDP side, for the session simulator's two-sided report. Off
 * unless {@code PdpServer.enableTimings()} is called: it keeps every sample.
 */
public final class PdpTimings {
  /** The phases timed, in nanoseconds. */
  public enum Phase {
    /** From the TCP connection being accepted to its Client-Open arriving. */
    ACCEPT_TO_OPEN("accept -> OPN"),
    /** From a Client-Open arriving to its Client-Accept being ready to encode. */
    OPEN_TO_ACCEPT("OPN -> CAT"),
    /** From a REQ arriving to its DEC being ready to encode. */
    REQUEST_TO_DECISION("REQ -> DEC"),
    /** From accept to the connection closing. */
    CONNECTION("whole connection");

    private final String label;

    Phase(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final List<ConcurrentLinkedQueue<Long>> samples = new ArrayList<>();

  public PdpTimings() {
    for (int i = 0; i < Phase.values().length; i++) {
      samples.add(new ConcurrentLinkedQueue<>());
    }
  }

  public void record(Phase p, long nanos) {
    samples.get(p.ordinal()).add(nanos);
  }

  /** The samples of a phase so far. */
  public long[] samples(Phase p) {
    return samples.get(p.ordinal()).stream().mapToLong(Long::longValue).toArray();
  }
}
