package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/**
 * Request (REQ): {@code <Handle> <Context> [<IN-Int>] [<OUT-Int>] [<ClientSI(s)>]
 * [<LPDPDecision(s)>] [<Integrity>]}.
 */
public record Request(
    int clientType,
    boolean solicited,
    Handle handle,
    Context context,
    Interface in,
    Interface out,
    List<ClientSI> clientSIs,
    List<DecisionSet> lpdpDecisions,
    IntegrityObject integrity)
    implements CopsMessage {

  public Request {
    checkClientType(clientType);
    required(handle, "Client Handle");
    required(context, "Context");
    if (in != null && in.out()) {
      throw new IllegalArgumentException("IN-Int: an Out-Interface object");
    }
    if (out != null && !out.out()) {
      throw new IllegalArgumentException("OUT-Int: an In-Interface object");
    }
    clientSIs = List.copyOf(clientSIs == null ? List.of() : clientSIs);
    lpdpDecisions = List.copyOf(lpdpDecisions == null ? List.of() : lpdpDecisions);
    for (DecisionSet d : lpdpDecisions) {
      if (!d.flags().lpdp()) {
        throw new IllegalArgumentException("LPDP decision: a PDP Decision object (C-Num 6)");
      }
    }
    hmacOnly(integrity, OpCode.REQ);
  }

  /** A request with a handle, a context and client-specific information. */
  public static Request of(int clientType, Handle handle, Context context, ClientSI... si) {
    return new Request(clientType, false, handle, context, null, null, List.of(si), null, null);
  }

  /**
   * The data of the first ClientSI, which must be a signaled one: the client type's request.
   *
   * @param what the request expected, for the error (e.g. "the access request")
   * @throws CopsCodecException error 5 (mandatory client-specific info missing) without it
   */
  public Bytes signaledData(String what) throws CopsCodecException {
    ClientSI si = clientSIs.isEmpty() ? null : clientSIs.get(0);
    if (si == null || si.named()) {
      throw CopsCodecException.at(
          ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING,
          0,
          0,
          "ClientSI",
          "missing",
          "a signaled ClientSI with " + what);
    }
    return si.data();
  }

  @Override
  public OpCode opCode() {
    return OpCode.REQ;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(4 + clientSIs.size() + 2 * lpdpDecisions.size());
    l.add(handle);
    l.add(context);
    add(l, in);
    add(l, out);
    l.addAll(clientSIs);
    for (DecisionSet d : lpdpDecisions) {
      d.addTo(l);
    }
    add(l, integrity);
    return l;
  }

  @Override
  public Request withIntegrity(IntegrityObject i) {
    return new Request(
        clientType, solicited, handle, context, in, out, clientSIs, lpdpDecisions, i);
  }
}
