package dev.portcullis.pcmm;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateExtra;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmFormatException;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Gates and Gate-Sets as a fleet's store keeps them: their PCMM objects as on the wire, read back
 * with the same reader as a CMTS's messages (so a damaged record is refused with its offset).
 */
final class GateRecords {
  private GateRecords() {}

  /** A gate: its Gate-Set's objects with its Gate ID and a Gate State of its last state. */
  static byte[] gate(Gate g) {
    List<PcmmObject> l = new ArrayList<>();
    l.add(new PcmmObject.TransactionId(0, GateCommand.GATE_SET_ACK));
    l.addAll(g.request().gateSetObjects(new PcmmObject.GateId(g.gateId())));
    l.add(new PcmmObject.GateState(Math.max(0, g.state()), 0));
    return new GateMessage(l).encode().toArray();
  }

  /** A Gate-Set about to leave. */
  static byte[] intent(GateRequest r) {
    List<PcmmObject> l = new ArrayList<>();
    l.add(new PcmmObject.TransactionId(0, GateCommand.GATE_SET));
    l.addAll(r.gateSetObjects(null));
    return new GateMessage(l).encode().toArray();
  }

  static Gate gate(String cmts, byte[] data) {
    GateMessage m = read(data);
    if (m.gateId() == null || m.gateState() == null) {
      throw new IllegalArgumentException("a gate record without its Gate ID or Gate State");
    }
    return new Gate(cmts, m.gateId().id(), request(m), m.gateState().state());
  }

  static GateRequest request(byte[] data) {
    return request(read(data));
  }

  private static GateRequest request(GateMessage m) {
    return new GateRequest(
        m.amid(),
        m.subscriber(),
        m.gateSpec(),
        m.trafficProfile(),
        m.classifiers(),
        m.all(GateExtra.class));
  }

  private static GateMessage read(byte[] data) {
    try {
      return GateMessage.decode(Bytes.of(data));
    } catch (PcmmFormatException e) {
      throw new IllegalArgumentException("a damaged record: " + e.getMessage(), e);
    }
  }
}
