package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Client-Open (OPN): {@code <PEPID> [<ClientSI>] [<LastPDPAddr>] [<Integrity>]}. */
public record ClientOpen(
    int clientType,
    boolean solicited,
    PepId pepId,
    ClientSI clientSI,
    PdpAddress lastPdpAddress,
    IntegrityObject integrity)
    implements CopsMessage {

  public ClientOpen {
    checkClientType(clientType);
    required(pepId, "PEPID");
    if (lastPdpAddress != null && !lastPdpAddress.last()) {
      throw new IllegalArgumentException("LastPDPAddr: a PDP Redirect Address object");
    }
  }

  public static ClientOpen of(int clientType, String pepId) {
    return new ClientOpen(clientType, false, new PepId(pepId), null, null, null);
  }

  @Override
  public OpCode opCode() {
    return OpCode.OPN;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(4);
    l.add(pepId);
    add(l, clientSI);
    add(l, lastPdpAddress);
    add(l, integrity);
    return l;
  }

  @Override
  public ClientOpen withIntegrity(IntegrityObject i) {
    return new ClientOpen(clientType, solicited, pepId, clientSI, lastPdpAddress, i);
  }
}
