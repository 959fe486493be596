package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;

/**
 * Encodes DECs for one connection's encoder, writing each decision's objects (its Context, Decision
 * Flags and data: everything after the Handle) from bytes kept when that {@link DecisionSet} was
 * written before. A PDP answers most requests with a handful of decisions (one per rule outcome,
 * the same instance each time: {@code PolicyDecision.decisionSet}), so a DEC is then its header,
 * its Handle and one copy. A set is kept from the second DEC that carries it. The bytes are those
 * {@link CopsCodec#encode(CopsMessage, ByteBuf)} writes ({@code DecisionTailsTest} checks both
 * against each other).
 *
 * <p>Measured (CopsCodecBenchmark, 2026-11-29): encoding the PDP's DEC with the generic encoder 269
 * ns, most of it some 25 small buffer writes with their bounds checks and the object list. A
 * decision set is a record, so a cached entry is found by identity: no comparison of contents. One
 * connection's encoder, one thread: not thread-safe.
 */
final class DecisionTails {
  /** Decision sets remembered: the PDP's rule outcomes a connection meets at once. */
  static final int ENTRIES = 8;

  /** A decision whose objects are larger than this is written as it is, never kept. */
  static final int MAX_TAIL = 512;

  private final DecisionSet[] sets = new DecisionSet[ENTRIES];
  private final byte[][] tails = new byte[ENTRIES][];
  private int next; // the entry replaced next: round robin
  // sets written once and not kept: a set is kept from its second DEC on, so that one made for a
  // single DEC (a PCMM gate's decision, made for its request) costs no copy and no array
  private final DecisionSet[] seen = new DecisionSet[ENTRIES];
  private int nextSeen;

  /** Writes {@code d} as {@link CopsCodec#encode(CopsMessage, ByteBuf)} would. */
  void encode(Decision d, ByteBuf out) {
    int start = CopsCodec.writeHeader(d, out);
    CopsCodec.writeObject(d.handle(), out);
    for (DecisionSet s : d.decisions()) {
      write(s, out);
    }
    if (d.error() != null) {
      CopsCodec.writeObject(d.error(), out);
    }
    if (d.integrity() != null) {
      CopsCodec.writeObject(d.integrity(), out);
    }
    CopsCodec.setLength(start, out);
  }

  private void write(DecisionSet s, ByteBuf out) {
    for (int i = 0; i < ENTRIES; i++) {
      if (sets[i] == s) {
        out.writeBytes(tails[i]);
        return;
      }
    }
    int from = out.writerIndex();
    s.writeTo(out);
    int length = out.writerIndex() - from;
    if (length <= MAX_TAIL && seenBefore(s)) {
      byte[] tail = new byte[length];
      out.getBytes(from, tail);
      sets[next] = s;
      tails[next] = tail;
      next = (next + 1) % ENTRIES;
    }
  }

  /** Whether {@code s} was written once before; if not, it is remembered as written now. */
  private boolean seenBefore(DecisionSet s) {
    for (int i = 0; i < ENTRIES; i++) {
      if (seen[i] == s) {
        seen[i] = null;
        return true;
      }
    }
    seen[nextSeen] = s;
    nextSeen = (nextSeen + 1) % ENTRIES;
    return false;
  }
}
