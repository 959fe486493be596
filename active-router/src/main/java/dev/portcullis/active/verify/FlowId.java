package dev.portcullis.active.verify;

import dev.portcullis.active.packet.PacketView;

/**
 * The session-cache key: every packet field the session keys depend on, as primitives. The verifier
 * fills one mutable probe per thread from each packet and looks it up without allocating; only a
 * miss stores an immutable {@link #copy}.
 */
final class FlowId {
  private long user;
  private long sst;
  private long set;
  private long srcHigh;
  private long srcLow;
  private long dstHigh;
  private long dstLow;
  private int code;
  private int epoch;
  private int kind; // MAC algorithm id, plus 0x100 for IPv6
  private int hash;

  /** Loads the fields of a structurally sound packet. */
  FlowId load(PacketView p) {
    user = p.user();
    sst = p.sst();
    set = p.set();
    srcHigh = p.sourceHigh();
    srcLow = p.sourceLow();
    dstHigh = p.destinationHigh();
    dstLow = p.destinationLow();
    code = p.code();
    epoch = p.epoch();
    kind = p.mac().id | (p.ipv6() ? 0x100 : 0);
    long h = user * 31 + sst;
    h = h * 31 + set;
    h = h * 31 + srcHigh;
    h = h * 31 + srcLow;
    h = h * 31 + dstHigh;
    h = h * 31 + dstLow;
    h = h * 31 + code;
    h = h * 31 + epoch;
    h = h * 31 + kind;
    hash = Long.hashCode(h * 0x9E37_79B9_7F4A_7C15L);
    return this;
  }

  FlowId copy() {
    return new FlowId().copyFrom(this);
  }

  /** Becomes equal to {@code o}. */
  FlowId copyFrom(FlowId o) {
    user = o.user;
    sst = o.sst;
    set = o.set;
    srcHigh = o.srcHigh;
    srcLow = o.srcLow;
    dstHigh = o.dstHigh;
    dstLow = o.dstLow;
    code = o.code;
    epoch = o.epoch;
    kind = o.kind;
    hash = o.hash;
    return this;
  }

  long set() {
    return set;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FlowId f
        && f.hash == hash
        && f.user == user
        && f.sst == sst
        && f.set == set
        && f.srcHigh == srcHigh
        && f.srcLow == srcLow
        && f.dstHigh == dstHigh
        && f.dstLow == dstLow
        && f.code == code
        && f.epoch == epoch
        && f.kind == kind;
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
