package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.portcullis.cops.pcmm.Deviation;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The policy server against a CMTS that behaves as the deployed implementation we tried does
 * (OpenDaylight's packetcable CMTS emulator; docs/pcmm.md): it acts only on a DEC whose Decision
 * Flags carry Trigger Error and answers nothing otherwise, opens with PCMM version 5.0, sends its
 * REQ a second time on the same handle, and writes a service class name whose length is a multiple
 * of 4 with no terminating zero.
 */
@Timeout(60)
class DeployedCmtsTest {
  /** How the peer answers; {@code garbleAcks}: a Gate-Set-Ack whose Gate ID is cut short. */
  record Behaviour(boolean garbleAcks, boolean silent) {
    static final Behaviour AS_DEPLOYED = new Behaviour(false, false);
  }

  /** A blocking-socket CMTS, one policy server at a time; only what the tests need. */
  static final class DeployedCmts implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    final Set<String> serviceClasses = Set.of("VoIP", "VoIP_UP");
    final Map<Integer, GateMessage> gates = new ConcurrentHashMap<>();
    final AtomicInteger decisions = new AtomicInteger();
    final AtomicInteger withoutTriggerError = new AtomicInteger();
    final AtomicInteger gateInfos = new AtomicInteger();
    final AtomicInteger nextGate = new AtomicInteger(0x100);
    final Behaviour behaviour;

    DeployedCmts(Behaviour behaviour) throws IOException {
      this.behaviour = behaviour;
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept()) {
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
          out.write(answer(h, PcmmCops.of(d)));
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
          GateMessage g = gates.get(m.gateId().id());
          o.write(ids(txn, GateCommand.GATE_INFO_ACK, m));
          o.write(PcmmObjects.encode(List.of(m.gateId(), g.gateSpec())).toArray());
          o.write(unterminated((TrafficProfile.ServiceClassName) g.trafficProfile()));
          o.write(PcmmObjects.encode(g.classifiers()).toArray());
          o.write(
              PcmmObjects.encode(
                      List.of(new PcmmObject.GateState(PcmmObject.GateState.COMMITTED, 0)))
                  .toArray());
        }
        case GATE_DELETE -> {
          gates.remove(m.gateId().id());
          o.write(ids(txn, GateCommand.GATE_DELETE_ACK, m));
          o.write(PcmmObjects.encode(List.of(m.gateId())).toArray());
        }
        default -> throw new IllegalStateException(m.toString());
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

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private static PolicyServer serverFor(DeployedCmts cmts) throws Exception {
    PolicyServer ps =
        PolicyServer.start(Map.of("odl", cmts.address()), new SubscriberLimits(10, Set.of()), FAST);
    join(ps.ready());
    return ps;
  }

  @Test
  void everyGateCommandIsActedOnAndAnsweredAsItIsByTheDeployedCmts() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(Behaviour.AS_DEPLOYED);
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("odl", request(1, "VoIP", 5060)));
      assertEquals(0x100, g.gateId());
      // read back: the name comes with no terminating zero, read and counted
      GateMessage info = join(ps.info(g));
      assertEquals(GateCommand.GATE_INFO_ACK, info.command());
      assertEquals(
          "VoIP",
          ((TrafficProfile.ServiceClassName) info.trafficProfile()).name(),
          info.toString());
      assertEquals(1, ps.peer("odl").deviations(Deviation.UNTERMINATED_SERVICE_CLASS_NAME));
      // refused: the CMTS's own error reaches the caller
      Throwable e = failure(ps.set("odl", request(2, "GOLD", 80)));
      GateRefusedException r = assertInstanceOf(GateRefusedException.class, e);
      assertEquals(GateRefusedException.Kind.CMTS, r.kind());
      assertEquals(11, r.error().code());
      join(ps.delete(g, "test"));
      assertEquals(0, cmts.gates.size());
      assertEquals(0, cmts.withoutTriggerError.get(), "every DEC carries Trigger Error");
      assertEquals(5, ps.peer("odl").major());
      assertEquals(0, ps.peer("odl").minor());
    }
  }

  @Test
  void aReqSentAgainOnTheSameConnectionIsNotAReconnect() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(Behaviour.AS_DEPLOYED);
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("odl", request(1, "VoIP_UP", 5060))); // the REQ follows its answer
      join(ps.set("odl", request(2, "VoIP_UP", 5060))); // after the REQ: gates go on
      assertEquals(2, ps.gates().size());
      assertEquals(0, cmts.gateInfos.get(), "no gate checked: nothing was lost");
      join(ps.delete(g, "test"));
    }
  }

  @Test
  void anAnswerThatCannotBeReadIsSaidWithItsObjectAndOffsetNotAsNoAnswer() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(new Behaviour(true, false));
        PolicyServer ps = serverFor(cmts)) {
      long t0 = System.nanoTime();
      Throwable e = failure(ps.set("odl", request(1, "VoIP", 5060)));
      GateRefusedException r = assertInstanceOf(GateRefusedException.class, e);
      assertEquals(GateRefusedException.Kind.UNREADABLE, r.kind(), r.getMessage());
      assertTrue(r.getMessage().contains("Gate-Set-Ack"), r.getMessage());
      assertTrue(r.getMessage().contains("offset 24"), r.getMessage());
      assertTrue(
          System.nanoTime() - t0 < FAST.answerTimeout().toNanos(), "failed at once, not timed out");
      assertEquals(1, ps.peer("odl").unreadableAnswers());
      assertEquals(0, ps.gates().size());
    }
  }

  @Test
  void aCommandLeftUnansweredIsCountedAgainstItsCmts() throws Exception {
    try (DeployedCmts cmts = new DeployedCmts(new Behaviour(false, true));
        PolicyServer ps = serverFor(cmts)) {
      Throwable e = failure(ps.set("odl", request(1, "VoIP", 5060)));
      assertEquals(
          GateRefusedException.Kind.NO_ANSWER,
          assertInstanceOf(GateRefusedException.class, e).kind());
      assertEquals(1, ps.peer("odl").unansweredCommands());
    }
  }
}
