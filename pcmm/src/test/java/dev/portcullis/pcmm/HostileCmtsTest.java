package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** CMTSs that answer wrongly on purpose: the policy server's books stay true. */
@Timeout(60)
class HostileCmtsTest {
  /**
   * A CMTS on a blocking socket that opens, takes the Client-Accept, sends its REQ, then answers
   * each gate control message with what {@code answer} makes of it (a list of messages to send).
   */
  static final class ScriptedCmts implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    final Thread thread;

    /** When each connection was accepted (System.nanoTime), in order. */
    final List<Long> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();

    ScriptedCmts(Function<GateMessage, List<GateMessage>> answer) throws IOException {
      this(answer, null);
    }

    /** As above; {@code afterRequest} (null: none) is written right after the REQ. */
    ScriptedCmts(Function<GateMessage, List<GateMessage>> answer, byte[] afterRequest)
        throws IOException {
      thread =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept()) {
                    accepted.add(System.nanoTime());
                    serve(s, answer, afterRequest);
                  } catch (Exception e) {
                    // the policy server hung up, or the test ended: next
                  }
                }
              },
              "scripted-cmts");
      thread.setDaemon(true);
      thread.start();
    }

    private static void serve(
        Socket s, Function<GateMessage, List<GateMessage>> answer, byte[] afterRequest)
        throws Exception {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      Handle h = Handle.of("scripted");
      out.write(CopsCodec.encode(ClientOpen.of(PcmmCops.CLIENT_TYPE, "scripted")));
      if (!(read(in) instanceof ClientAccept)) {
        return;
      }
      out.write(
          CopsCodec.encode(
              Request.of(PcmmCops.CLIENT_TYPE, h, new Context(Context.R_CONFIGURATION, 0))));
      if (afterRequest != null) {
        out.write(afterRequest);
      }
      while (true) {
        if (read(in) instanceof Decision d) {
          for (GateMessage m : answer.apply(PcmmCops.of(d))) {
            out.write(CopsCodec.encode(PcmmCops.report(h, m)));
          }
        }
      }
    }

    /** One COPS message off a blocking stream. */
    static CopsMessage read(DataInputStream in) throws Exception {
      byte[] header = new byte[8];
      in.readFully(header);
      int len =
          (header[4] & 0xff) << 24
              | (header[5] & 0xff) << 16
              | (header[6] & 0xff) << 8
              | (header[7] & 0xff);
      byte[] all = new byte[len];
      System.arraycopy(header, 0, all, 0, 8);
      in.readFully(all, 8, len - 8);
      return CopsCodec.decode(all);
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  static GateMessage ack(GateMessage set, PcmmObject.GateId id) {
    return GateMessage.of(
        new PcmmObject.TransactionId(set.transactionId().id(), GateCommand.GATE_SET_ACK),
        set.amid(),
        set.subscriber(),
        id);
  }

  PolicyServer serverFor(ScriptedCmts cmts) throws Exception {
    PolicyServer ps =
        PolicyServer.start(
            Map.of("scripted", cmts.address()), new SubscriberLimits(100, Set.of()), FAST);
    join(ps.ready());
    return ps;
  }

  @Test
  void anAckWithoutARealGateIdFilesNoGate() throws Exception {
    try (ScriptedCmts cmts = new ScriptedCmts(m -> List.of(ack(m, new PcmmObject.GateId(0))));
        PolicyServer ps = serverFor(cmts)) {
      Throwable e = failure(ps.set("scripted", request(1, "BE", 80)));
      assertInstanceOf(GateRefusedException.class, e);
      assertTrue(e.getMessage().contains("Gate ID 0"), e.getMessage());
      assertEquals(0, ps.gates().size());
    }
  }

  @Test
  void anAckWithoutAGateIdOrWithOneHeldAlreadyFilesNoGate() throws Exception {
    try (ScriptedCmts cmts =
            new ScriptedCmts(
                m ->
                    m.transactionId().id() == 2
                        ? List.of(
                            GateMessage.of(
                                new PcmmObject.TransactionId(2, GateCommand.GATE_SET_ACK),
                                m.amid(),
                                m.subscriber()))
                        : List.of(ack(m, new PcmmObject.GateId(0x1234))));
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("scripted", request(1, "BE", 80)));
      assertEquals(0x1234, g.gateId());
      Throwable e = failure(ps.set("scripted", request(2, "BE", 80))); // txn 2: no Gate ID
      assertTrue(e.getMessage().contains("answered"), e.getMessage());
      e = failure(ps.set("scripted", request(3, "BE", 80))); // the same Gate ID again
      assertTrue(e.getMessage().contains("again"), e.getMessage());
      assertEquals(List.of(g), ps.gates());
    }
  }

  @Test
  void answersToNothingAndStrayStateReportsChangeNothing() throws Exception {
    try (ScriptedCmts cmts =
            new ScriptedCmts(
                m ->
                    List.of(
                        // a state report closing a gate nobody holds, an answer to no
                        // transaction, then the real answer
                        GateMessage.of(
                            new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
                            m.amid(),
                            m.subscriber(),
                            new PcmmObject.GateId(0x999),
                            new PcmmObject.GateState(PcmmObject.GateState.IDLE, 13)),
                        ack(
                            GateMessage.of(
                                new PcmmObject.TransactionId(0x7777, GateCommand.GATE_SET),
                                m.amid(),
                                m.subscriber()),
                            new PcmmObject.GateId(0x4242)),
                        ack(m, new PcmmObject.GateId(0x5555))));
        PolicyServer ps = serverFor(cmts)) {
      Gate g = join(ps.set("scripted", request(1, "BE", 80)));
      assertEquals(0x5555, g.gateId());
      assertEquals(List.of(g), ps.gates());
    }
  }

  @Test
  void aFloodOfReportsWithoutAGateIdIsCountedNotLoggedOneByOne() throws Exception {
    int flood = 2_000;
    try (ScriptedCmts cmts =
            new ScriptedCmts(
                m -> {
                  List<GateMessage> out = new java.util.ArrayList<>();
                  for (int i = 0; i < flood; i++) {
                    out.add(
                        GateMessage.of(
                            new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
                            m.amid(),
                            m.subscriber(),
                            new PcmmObject.GateState(PcmmObject.GateState.IDLE, 13)));
                  }
                  out.add(ack(m, new PcmmObject.GateId(0x77)));
                  return out;
                });
        PolicyServer ps = serverFor(cmts);
        dev.portcullis.support.LogLines lines =
            dev.portcullis.support.LogLines.of(CmtsWatch.class)) {
      join(ps.set("scripted", request(1, "BE", 80))); // answered after the flood: all read
      long said = lines.warnings().stream().filter(l -> l.contains("without a Gate ID")).count();
      assertEquals(1, said, "the first in full, the rest counted: " + lines.warnings().size());
    }
  }

  /**
   * One loop owns every CMTS link and the books (docs/pcmm.md), so a CMTS that never stops sending
   * must not hold up the others: while one floods its link without end, Gate-Sets on another CMTS
   * are all answered (Netty reads each channel in turn), and the flood is counted, not filed.
   */
  @Test
  void aCmtsThatFloodsWithoutEndHoldsUpNoOtherCmts() throws Exception {
    GateRequest r = request(1, "BE", 80);
    byte[] block;
    {
      byte[] one =
          CopsCodec.encode(
              PcmmCops.report(
                  Handle.of("flood"),
                  GateMessage.of(
                      new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
                      r.amid(),
                      r.subscriber(),
                      new PcmmObject.GateState(PcmmObject.GateState.IDLE, 13))));
      block = new byte[one.length * 1_000];
      for (int i = 0; i < 1_000; i++) {
        System.arraycopy(one, 0, block, i * one.length, one.length);
      }
    }
    AtomicLong sent = new AtomicLong();
    try (ServerSocket flooding = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT)) {
      Thread flood =
          new Thread(
              () -> {
                try (Socket s = flooding.accept()) {
                  DataInputStream in = new DataInputStream(s.getInputStream());
                  OutputStream out = s.getOutputStream();
                  out.write(CopsCodec.encode(ClientOpen.of(PcmmCops.CLIENT_TYPE, "flood")));
                  if (!(ScriptedCmts.read(in) instanceof ClientAccept)) {
                    return;
                  }
                  out.write(
                      CopsCodec.encode(
                          Request.of(
                              PcmmCops.CLIENT_TYPE,
                              Handle.of("flood"),
                              new Context(Context.R_CONFIGURATION, 0))));
                  while (true) {
                    out.write(block); // until the test ends
                    sent.addAndGet(1_000);
                  }
                } catch (Exception e) {
                  // the test ended
                }
              },
              "flooding-cmts");
      flood.setDaemon(true);
      flood.start();
      Map<String, InetSocketAddress> cmtss = new LinkedHashMap<>();
      cmtss.put(
          "flooding",
          new InetSocketAddress(InetAddress.getLoopbackAddress(), flooding.getLocalPort()));
      cmtss.put("quiet", sim.cmtss().get(0).address());
      try (PolicyServer ps = PolicyServer.start(cmtss, new SubscriberLimits(100, Set.of()), FAST)) {
        join(ps.ready());
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> sent.get() >= 100_000); // the flood is under way
        for (int i = 0; i < 20; i++) {
          join(ps.set("quiet", request(2, "BE", 1_000 + i)));
        }
        long during = sent.get();
        assertTrue(flood.isAlive(), "the flood never stopped");
        assertEquals(20, ps.gates("quiet").size(), "every Gate-Set on the quiet CMTS answered");
        assertEquals(0, ps.gates("flooding").size(), "nothing of the flood filed");
        assertTrue(during >= 100_000, "flooded with " + during + " reports meanwhile");
      }
    }
  }

  @Test
  @SuppressWarnings("try") // the policy server is held open for its link's reconnects
  void aCmtsThatMisbehavesRightAfterItsRequestIsReconnectedWithGrowingBackOff() throws Exception {
    // a COPS header of version 2: malformed, so each connection is refused and closed
    byte[] junk = {0x20, 0x03, 0x00, 0x0a, 0, 0, 0, 8};
    try (ScriptedCmts cmts = new ScriptedCmts(m -> List.of(), junk);
        PolicyServer ps =
            PolicyServer.start(
                Map.of("scripted", cmts.address()), new SubscriberLimits(100, Set.of()), FAST)) {
      org.awaitility.Awaitility.await("six connections")
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> cmts.accepted.size() >= 6);
      // FAST: 20 ms doubling to 300 ms. With the REQ resetting it, every wait was 20 ms (28
      // connections in 2 s); each gap is at least its wait, whatever else the machine is doing.
      long[] waits = {20, 40, 80, 160, 300};
      for (int i = 0; i < waits.length; i++) {
        long gap = (cmts.accepted.get(i + 1) - cmts.accepted.get(i)) / 1_000_000;
        assertTrue(gap >= waits[i] * 9 / 10, "connection " + (i + 2) + " after " + gap + " ms");
      }
    }
  }
}
