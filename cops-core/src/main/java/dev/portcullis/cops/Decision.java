package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Decision (DEC): {@code <Handle> <Decision(s)> | <Error> [<Integrity>]}. */
public record Decision(
    int clientType,
    boolean solicited,
    Handle handle,
    List<DecisionSet> decisions,
    ErrorObject error,
    IntegrityObject integrity)
    implements CopsMessage {

  public Decision {
    checkClientType(clientType);
    required(handle, "Client Handle");
    decisions = List.copyOf(decisions == null ? List.of() : decisions);
    if (decisions.isEmpty() == (error == null)) {
      throw new IllegalArgumentException(
          "DEC: "
              + (error == null ? "neither decisions nor" : "both decisions and")
              + " an Error (expected: one or more decisions, or an Error)");
    }
    for (DecisionSet d : decisions) {
      if (d.flags().lpdp()) {
        throw new IllegalArgumentException("DEC decision: an LPDP Decision object (C-Num 7)");
      }
      required(d.context(), "Context of each DEC decision");
    }
    hmacOnly(integrity, OpCode.DEC);
  }

  /** A decision message with decisions. */
  public static Decision of(
      int clientType, boolean solicited, Handle handle, DecisionSet... decisions) {
    return new Decision(clientType, solicited, handle, List.of(decisions), null, null);
  }

  /** A decision message reporting a protocol error in a request. */
  public static Decision error(int clientType, Handle handle, ErrorObject error) {
    return new Decision(clientType, true, handle, null, error, null);
  }

  @Override
  public OpCode opCode() {
    return OpCode.DEC;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(3 + 3 * decisions.size());
    l.add(handle);
    for (DecisionSet d : decisions) {
      d.addTo(l);
    }
    add(l, error);
    add(l, integrity);
    return l;
  }

  @Override
  public Decision withIntegrity(IntegrityObject i) {
    return new Decision(clientType, solicited, handle, decisions, error, i);
  }
}
