package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.Deviation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one CMTS has shown of itself, for metrics and logs: the PCMM version it opened with, what it
 * wrote against the specification that was read anyway (by kind), its answers that could not be
 * read, and gate commands it left unanswered. Written on its link's event loop, read by anyone.
 */
final class PeerStats {
  /**
   * The PCMM version this server implements: PKT-SP-MM-I02's Version Info is Major 1, Minor 0 (a
   * CMTS of a later issue opens with a higher one).
   */
  static final int IMPLEMENTED_MAJOR = 1;

  static final int IMPLEMENTED_MINOR = 0;

  private final Map<String, LongAdder> deviations = new LinkedHashMap<>();
  private final LongAdder unreadable = new LongAdder();
  private final LongAdder unanswered = new LongAdder();
  private volatile int major = -1;
  private volatile int minor = -1;

  PeerStats() {
    for (String k : Deviation.KINDS) {
      deviations.put(k, new LongAdder());
    }
  }

  /** Counts {@code d}; true if it is the first of its kind from this CMTS (to be logged). */
  boolean deviated(Deviation d) {
    LongAdder n = deviations.get(d.kind());
    if (n == null) {
      return false;
    }
    boolean first = n.sum() == 0;
    n.increment();
    return first;
  }

  /** Deviations of {@code kind} read from this CMTS. */
  long deviations(String kind) {
    LongAdder n = deviations.get(kind);
    return n == null ? 0 : n.sum();
  }

  void unreadable() {
    unreadable.increment();
  }

  /** Answers from this CMTS that could not be read. */
  long unreadableAnswers() {
    return unreadable.sum();
  }

  void unanswered() {
    unanswered.increment();
  }

  /** Gate commands this CMTS did not answer within the answer timeout. */
  long unansweredCommands() {
    return unanswered.sum();
  }

  /** Records the version of a Client-Open; true if it is newer than the one implemented here. */
  boolean opened(int major, int minor) {
    this.major = major;
    this.minor = minor;
    return major > IMPLEMENTED_MAJOR || major == IMPLEMENTED_MAJOR && minor > IMPLEMENTED_MINOR;
  }

  /** The PCMM major version of the CMTS's last Client-Open, -1 before one said it. */
  int major() {
    return major;
  }

  int minor() {
    return minor;
  }
}
