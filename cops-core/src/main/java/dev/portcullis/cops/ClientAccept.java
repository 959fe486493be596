package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Client-Accept (CAT): {@code <KA Timer> [<ACCT Timer>] [<Integrity>]}. */
public record ClientAccept(
    int clientType,
    boolean solicited,
    KaTimer kaTimer,
    AcctTimer acctTimer,
    IntegrityObject integrity)
    implements CopsMessage {

  public ClientAccept {
    checkClientType(clientType);
    required(kaTimer, "KA Timer");
  }

  public static ClientAccept of(int clientType, int kaSeconds) {
    return new ClientAccept(clientType, false, new KaTimer(kaSeconds), null, null);
  }

  @Override
  public OpCode opCode() {
    return OpCode.CAT;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(3);
    l.add(kaTimer);
    add(l, acctTimer);
    add(l, integrity);
    return l;
  }

  @Override
  public ClientAccept withIntegrity(IntegrityObject i) {
    return new ClientAccept(clientType, solicited, kaTimer, acctTimer, i);
  }
}
