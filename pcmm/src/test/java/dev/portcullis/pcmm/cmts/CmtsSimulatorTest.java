package dev.portcullis.pcmm.cmts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionDataKind;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulated CMTS as a peer: what it accepts and what it answers. */
class CmtsSimulatorTest {
  private static final String GATE_SET =
      "0008 0101 0042 0004" // Transaction ID 0x42, Gate-Set
          + "0008 0201 0001 0203" // AMID
          + "0008 0301 0a000001" // Subscriber ID 10.0.0.1
          + "0010 0501 01b8fc01 00c8012c 00000000"; // Gate Spec

  private static Decision dec(String objects, int flags) {
    Bytes data = Bytes.of(HexFormat.of().parseHex(objects.replace(" ", "")));
    return Decision.of(
        PcmmCops.CLIENT_TYPE,
        false,
        Handle.of("cmts-0"),
        new DecisionSet(
            new Context(Context.R_CONFIGURATION, 0),
            new DecisionFlags(false, DecisionCommand.INSTALL.code(), flags),
            null,
            null,
            new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, data),
            null));
  }

  @Test
  void aGateCommandIsActedOnWithTriggerErrorAndWithout() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT)) {
      CmtsSimulator.Cmts cmts = sim.cmtss().get(0);
      String scn = "0010 0702 01000000 566f49505f555000"; // "VoIP_UP"
      String classifier = "0018 0601 0011 0000 0a000001 c000020a 0000 13c4 40000000";
      for (int flags : new int[] {DecisionFlags.TRIGGER_ERROR, 0}) {
        GateMessage a = cmts.answer(dec(GATE_SET + scn + classifier, flags));
        assertEquals(GateCommand.GATE_SET_ACK, a.command(), a.toString());
      }
      // a policy server that writes the name as deployed ones do: no terminating zero
      GateMessage a = cmts.answer(dec(GATE_SET + "000c 0702 01000000 56 6f 49 50" + classifier, 1));
      assertEquals(GateCommand.GATE_SET_ERR, a.command()); // "VoIP": not a class it has
      assertEquals(PcmmErrorCode.UNDEFINED_SERVICE_CLASS_NAME.code(), a.error().code());
      assertEquals(1, cmts.deviations());
    }
  }

  @Test
  void aGateSetThatCannotBeReadIsAnsweredWithItsErrorWhenItsTransactionIdCanBe() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT)) {
      CmtsSimulator.Cmts cmts = sim.cmtss().get(0);
      // a classifier cut short: its Length says 24, 12 octets follow
      GateMessage a = cmts.answer(dec(GATE_SET + "0018 0601 0011 0000 0a000001 c000020a", 1));
      assertEquals(new PcmmObject.TransactionId(0x42, GateCommand.GATE_SET_ERR), a.transactionId());
      assertEquals(new PcmmObject.Amid(1, 0x0203), a.amid());
      assertEquals("10.0.0.1", a.subscriber().address().getHostAddress());
      assertEquals(PcmmErrorCode.INVALID_OBJECT.code(), a.error().code());
      assertEquals(0x0601, a.error().subcode());
      assertEquals(List.of(), List.copyOf(cmts.gateIds()));
      // no Transaction ID first: nothing to answer with
      assertNull(cmts.answer(dec("0008 0201 0001 0203", 1)));
    }
  }
}
