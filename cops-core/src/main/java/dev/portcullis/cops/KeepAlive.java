package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.hmacOnly;

import java.util.List;

/** Keep-Alive (KA): {@code [<Integrity>]}; the client type is always 0. */
public record KeepAlive(boolean solicited, IntegrityObject integrity) implements CopsMessage {
  public KeepAlive {
    hmacOnly(integrity, OpCode.KA);
  }

  @Override
  public int clientType() {
    return 0;
  }

  @Override
  public OpCode opCode() {
    return OpCode.KA;
  }

  @Override
  public List<CopsObject> objects() {
    return integrity == null ? List.of() : List.of(integrity);
  }

  @Override
  public KeepAlive withIntegrity(IntegrityObject i) {
    return new KeepAlive(solicited, i);
  }
}
