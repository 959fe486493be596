package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;

import java.util.ArrayList;
import java.util.List;

/** Synchronize State Complete (SSC): {@code [<Handle>] [<Integrity>]}. */
public record SyncStateComplete(
    int clientType, boolean solicited, Handle handle, IntegrityObject integrity)
    implements CopsMessage {

  public SyncStateComplete {
    checkClientType(clientType);
    hmacOnly(integrity, OpCode.SSC);
  }

  @Override
  public OpCode opCode() {
    return OpCode.SSC;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(2);
    add(l, handle);
    add(l, integrity);
    return l;
  }

  @Override
  public SyncStateComplete withIntegrity(IntegrityObject i) {
    return new SyncStateComplete(clientType, solicited, handle, i);
  }
}
