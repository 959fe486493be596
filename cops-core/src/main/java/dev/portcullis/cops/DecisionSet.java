package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.required;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * One decision: a Context (mandatory in DEC, optional in an LPDP decision of a REQ), the Decision
 * Flags, and at most one object of each data C-Type. RFC 2748 only requires the flags to come
 * first; the data objects are written in C-Type order.
 */
public record DecisionSet(
    Context context,
    DecisionFlags flags,
    DecisionData stateless,
    DecisionData replacement,
    DecisionData clientSpecific,
    DecisionData named) {

  public DecisionSet {
    required(flags, "Decision Flags");
    check(stateless, DecisionDataKind.STATELESS, flags.lpdp());
    check(replacement, DecisionDataKind.REPLACEMENT, flags.lpdp());
    check(clientSpecific, DecisionDataKind.CLIENT_SPECIFIC, flags.lpdp());
    check(named, DecisionDataKind.NAMED, flags.lpdp());
  }

  /** A decision with just a context and flags. */
  public static DecisionSet of(Context context, DecisionFlags flags) {
    return new DecisionSet(context, flags, null, null, null, null);
  }

  private static void check(DecisionData d, DecisionDataKind kind, boolean lpdp) {
    if (d == null) {
      return;
    }
    if (d.kind() != kind) {
      throw new IllegalArgumentException(
          "decision data: " + d.kind() + " in the " + kind + " slot");
    }
    if (d.lpdp() != lpdp) {
      throw new IllegalArgumentException(
          "decision data: "
              + (d.lpdp() ? "LPDP" : "PDP")
              + " object in a "
              + (lpdp ? "LPDP" : "PDP")
              + " decision");
    }
  }

  /** The data object of a kind, or null. */
  public DecisionData data(DecisionDataKind kind) {
    switch (kind) {
      case STATELESS:
        return stateless;
      case REPLACEMENT:
        return replacement;
      case CLIENT_SPECIFIC:
        return clientSpecific;
      default:
        return named;
    }
  }

  /** Writes this decision's objects in wire order, as {@link #addTo} lists them. */
  void writeTo(ByteBuf out) {
    write(context, out);
    CopsCodec.writeObject(flags, out);
    write(stateless, out);
    write(replacement, out);
    write(clientSpecific, out);
    write(named, out);
  }

  private static void write(CopsObject o, ByteBuf out) {
    if (o != null) {
      CopsCodec.writeObject(o, out);
    }
  }

  void addTo(List<CopsObject> l) {
    add(l, context);
    l.add(flags);
    add(l, stateless);
    add(l, replacement);
    add(l, clientSpecific);
    add(l, named);
  }
}
