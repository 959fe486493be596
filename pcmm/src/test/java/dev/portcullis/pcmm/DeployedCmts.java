package dev.portcullis.pcmm;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.ReportTypeObject;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.PcmmObjects;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CMTS that behaves as the deployed implementation we tried does (OpenDaylight's packetcable CMTS
 * emulator; docs/pcmm.md), written from what it was seen to send and accept, not from its code: it
 * acts only on a DEC whose Decision Flags carry Trigger Error and answers nothing otherwise, opens
 * with PCMM version 5.0, sends its REQ a second time on the same handle after the first command,
 * answers a Gate-Set-Err and every -Ack with the AMID and Subscriber ID, and writes a service class
 * name whose length is a multiple of 4 with no terminating zero. One policy server at a time, on a
 * blocking socket; its gates outlive a connection, as a CMTS's do.
 */
final class DeployedCmts implements AutoCloseable {
  /** How the peer answers; {@code garbleAcks}: a Gate-Set-Ack whose Gate ID is cut short. */
  record Behaviour(boolean garbleAcks, boolean silent) {
    static final Behaviour AS_DEPLOYED = new Behaviour(false, false);
  }

  final ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
  final Set<String> serviceClasses = Set.of("VoIP", "VoIP_UP");
  final Map<Integer, GateMessage> gates = new ConcurrentHashMap<>();
  final AtomicInteger decisions = new AtomicInteger();
  final AtomicInteger withoutTriggerError = new AtomicInteger();
  final AtomicInteger gateInfos = new AtomicInteger();

  /** Completes at the first Gate-Info. */
  final java.util.concurrent.CompletableFuture<Void> asked =
      new java.util.concurrent.CompletableFuture<>();

  final AtomicInteger nextGate = new AtomicInteger(0x100);
  final Behaviour behaviour;
  private volatile Socket current;

  DeployedCmts(Behaviour behaviour) throws IOException {
    this.behaviour = behaviour;
    Thread t =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                  current = s;
                  serve(s);
                } catch (Exception e) {
                  // the policy server hung up, or the test ended: next
                }
              }
            },
            "deployed-cmts");
    t.setDaemon(true);
    t.start();
  }

  private void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    OutputStream out = s.getOutputStream();
    Handle h = Handle.of("odl-like");
    ClientSI version =
        new ClientSI(false, PcmmObjects.encode(List.of(new PcmmObject.VersionInfo(5, 0))));
    out.write(
        CopsCodec.encode(
            new ClientOpen(PcmmCops.CLIENT_TYPE, false, new PepId("cmts"), version, null, null)));
    if (!(HostileCmtsTest.ScriptedCmts.read(in) instanceof ClientAccept)) {
      return;
    }
    Request req = Request.of(PcmmCops.CLIENT_TYPE, h, new Context(Context.R_CONFIGURATION, 0));
    out.write(CopsCodec.encode(req));
    boolean again = false;
    while (true) {
      if (!(HostileCmtsTest.ScriptedCmts.read(in) instanceof Decision d)) {
        continue;
      }
      decisions.incrementAndGet();
      DecisionSet set = d.decisions().get(0);
      if ((set.flags().flags() & DecisionFlags.TRIGGER_ERROR) == 0) {
        withoutTriggerError.incrementAndGet(); // acts on none of these, answers nothing
      } else if (!behaviour.silent()) {
        byte[] a = answer(h, PcmmCops.of(d));
        if (a != null) {
          out.write(a);
        }
      }
      if (!again) {
        // the REQ once more on the same handle, after the first command: as RFC 2748 allows
        again = true;
        out.write(CopsCodec.encode(req));
      }
    }
  }

  private byte[] answer(Handle h, GateMessage m) throws IOException {
    int txn = m.transactionId().id();
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ReportType type = ReportType.SUCCESS;
    switch (m.command()) {
      case GATE_SET -> {
        String scn = ((TrafficProfile.ServiceClassName) m.trafficProfile()).name();
        if (!serviceClasses.contains(scn)) {
          type = ReportType.FAILURE;
          o.write(ids(txn, GateCommand.GATE_SET_ERR, m));
          o.write(PcmmObjects.encode(List.of(new PcmmObject.PacketCableError(11, 0))).toArray());
        } else {
          int id = nextGate.getAndIncrement();
          gates.put(id, m);
          o.write(ids(txn, GateCommand.GATE_SET_ACK, m));
          byte[] gate = PcmmObjects.encode(List.of(new PcmmObject.GateId(id))).toArray();
          o.write(gate, 0, behaviour.garbleAcks() ? 6 : 8);
        }
      }
      case GATE_INFO -> {
        gateInfos.incrementAndGet();
        asked.complete(null);
        GateMessage g = gates.get(m.gateId().id());
        o.write(ids(txn, GateCommand.GATE_INFO_ACK, m));
        o.write(PcmmObjects.encode(List.of(m.gateId(), g.gateSpec())).toArray());
        o.write(unterminated((TrafficProfile.ServiceClassName) g.trafficProfile()));
        o.write(PcmmObjects.encode(g.classifiers()).toArray());
        o.write(
            PcmmObjects.encode(List.of(new PcmmObject.GateState(PcmmObject.GateState.COMMITTED, 0)))
                .toArray());
      }
      case GATE_DELETE -> {
        gates.remove(m.gateId().id());
        o.write(ids(txn, GateCommand.GATE_DELETE_ACK, m));
        o.write(PcmmObjects.encode(List.of(m.gateId())).toArray());
      }
      default -> {
        return null; // as the emulator: "does not support gate command", and no answer
      }
    }
    return CopsCodec.encode(
        new Report(
            PcmmCops.CLIENT_TYPE,
            true,
            h,
            new ReportTypeObject(type.code()),
            new ClientSI(false, Bytes.of(o.toByteArray())),
            null));
  }

  private static byte[] ids(int txn, GateCommand c, GateMessage m) {
    return PcmmObjects.encode(
            List.of(new PcmmObject.TransactionId(txn, c), m.amid(), m.subscriber()))
        .toArray();
  }

  /** The name as the deployed CMTS writes it: padded to 4, with no zero when it fills that. */
  private static byte[] unterminated(TrafficProfile.ServiceClassName n) {
    byte[] name = n.name().getBytes(StandardCharsets.US_ASCII);
    int field = (name.length + 3) & ~3;
    byte[] o = new byte[8 + field];
    o[1] = (byte) o.length;
    o[2] = 7;
    o[3] = 2;
    o[4] = (byte) n.envelope();
    System.arraycopy(name, 0, o, 8, name.length);
    return o;
  }

  /** Drops the policy server's connection (a CMTS restarting): the gates stay. */
  void dropConnection() throws IOException {
    Socket s = current;
    if (s != null) {
      s.close();
    }
  }

  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
