package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Delete Request State (DRQ): {@code <Handle> <Reason> [<Integrity>]}. */
public record DeleteRequest(
    int clientType, boolean solicited, Handle handle, Reason reason, IntegrityObject integrity)
    implements CopsMessage {

  public DeleteRequest {
    checkClientType(clientType);
    required(handle, "Client Handle");
    required(reason, "Reason");
    hmacOnly(integrity, OpCode.DRQ);
  }

  @Override
  public OpCode opCode() {
    return OpCode.DRQ;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(3);
    l.add(handle);
    l.add(reason);
    add(l, integrity);
    return l;
  }

  @Override
  public DeleteRequest withIntegrity(IntegrityObject i) {
    return new DeleteRequest(clientType, solicited, handle, reason, i);
  }
}
