package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Client-Close (CC): {@code <Error> [<PDPRedirAddr>] [<Integrity>]}. */
public record ClientClose(
    int clientType,
    boolean solicited,
    ErrorObject error,
    PdpAddress redirect,
    IntegrityObject integrity)
    implements CopsMessage {

  public ClientClose {
    checkClientType(clientType);
    required(error, "Error");
    if (redirect != null && redirect.last()) {
      throw new IllegalArgumentException("PDPRedirAddr: a Last PDP Address object");
    }
    hmacOnly(integrity, OpCode.CC);
  }

  public static ClientClose of(int clientType, ErrorCode code, int subCode) {
    return new ClientClose(clientType, false, new ErrorObject(code, subCode), null, null);
  }

  @Override
  public OpCode opCode() {
    return OpCode.CC;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(3);
    l.add(error);
    add(l, redirect);
    add(l, integrity);
    return l;
  }

  @Override
  public ClientClose withIntegrity(IntegrityObject i) {
    return new ClientClose(clientType, solicited, error, redirect, i);
  }
}
