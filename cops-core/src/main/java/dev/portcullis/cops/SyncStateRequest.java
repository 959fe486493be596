package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;

import java.util.ArrayList;
import java.util.List;

/** Synchronize State Request (SSQ): {@code [<Handle>] [<Integrity>]}. */
public record SyncStateRequest(
    int clientType, boolean solicited, Handle handle, IntegrityObject integrity)
    implements CopsMessage {

  public SyncStateRequest {
    checkClientType(clientType);
    hmacOnly(integrity, OpCode.SSQ);
  }

  @Override
  public OpCode opCode() {
    return OpCode.SSQ;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(2);
    add(l, handle);
    add(l, integrity);
    return l;
  }

  @Override
  public SyncStateRequest withIntegrity(IntegrityObject i) {
    return new SyncStateRequest(clientType, solicited, handle, i);
  }
}
