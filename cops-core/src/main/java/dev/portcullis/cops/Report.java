package dev.portcullis.cops;

import static dev.portcullis.cops.MessageFields.add;
import static dev.portcullis.cops.MessageFields.checkClientType;
import static dev.portcullis.cops.MessageFields.hmacOnly;
import static dev.portcullis.cops.MessageFields.required;

import java.util.ArrayList;
import java.util.List;

/** Report State (RPT): {@code <Handle> <Report-Type> [<ClientSI>] [<Integrity>]}. */
public record Report(
    int clientType,
    boolean solicited,
    Handle handle,
    ReportTypeObject reportType,
    ClientSI clientSI,
    IntegrityObject integrity)
    implements CopsMessage {

  public Report {
    checkClientType(clientType);
    required(handle, "Client Handle");
    required(reportType, "Report-Type");
    hmacOnly(integrity, OpCode.RPT);
  }

  @Override
  public OpCode opCode() {
    return OpCode.RPT;
  }

  @Override
  public List<CopsObject> objects() {
    List<CopsObject> l = new ArrayList<>(4);
    l.add(handle);
    l.add(reportType);
    add(l, clientSI);
    add(l, integrity);
    return l;
  }

  @Override
  public Report withIntegrity(IntegrityObject i) {
    return new Report(clientType, solicited, handle, reportType, clientSI, i);
  }
}
