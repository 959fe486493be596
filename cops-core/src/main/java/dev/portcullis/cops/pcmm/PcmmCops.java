package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionDataKind;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.ReportTypeObject;

/**
 * How gate control messages ride in COPS. The Policy Server's (Gate-Set, Gate-Info, Gate-Delete) go
 * in an unsolicited DEC on the handle of the CMTS's one REQ: a Context of R-Type Configuration,
 * Decision Flags with the command Install and the flag Trigger Error (0x1: the CMTS is to answer
 * with an -Err when it cannot carry the command out; deployed CMTSs act on no gate command without
 * it, docs/cops-wire.md), and the objects as Client Specific Decision Data (C-Num 6, C-Type 4). The
 * CMTS's go in an RPT on that handle, the objects in a signaled ClientSI (C-Num 9, C-Type 1):
 * Report-Type Success for an -Ack, Failure for an -Err, Accounting for a Gate-Report-State (a state
 * the CMTS reports of its own accord). A reader goes by the Gate Command Type, not by the
 * Report-Type.
 */
public final class PcmmCops {
  /** COPS client type of PacketCable Multimedia. */
  public static final int CLIENT_TYPE = 0x800A;

  /** The TCP port a CMTS listens on for its Policy Servers. */
  public static final int CMTS_PORT = 3918;

  private PcmmCops() {}

  /** A Policy Server's gate control message as a DEC on {@code handle}. */
  public static Decision decision(Handle handle, GateMessage m) {
    GateCommand c = m.command();
    if (c == null || !c.fromPolicyServer()) {
      throw new IllegalArgumentException(m + ": not a Policy Server's message (it goes in an RPT)");
    }
    return Decision.of(
        CLIENT_TYPE,
        false,
        handle,
        new DecisionSet(
            new Context(Context.R_CONFIGURATION, 0),
            new DecisionFlags(false, DecisionCommand.INSTALL.code(), DecisionFlags.TRIGGER_ERROR),
            null,
            null,
            new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, m.encode()),
            null));
  }

  /** A CMTS's gate control message as an RPT on {@code handle}. */
  public static Report report(Handle handle, GateMessage m) {
    GateCommand c = m.command();
    if (c == null || c.fromPolicyServer()) {
      throw new IllegalArgumentException(m + ": not a CMTS's message (it goes in a DEC)");
    }
    ReportType type =
        c.isError()
            ? ReportType.FAILURE
            : c == GateCommand.GATE_REPORT_STATE ? ReportType.ACCOUNTING : ReportType.SUCCESS;
    return new Report(
        CLIENT_TYPE,
        c != GateCommand.GATE_REPORT_STATE,
        handle,
        new ReportTypeObject(type.code()),
        new ClientSI(false, m.encode()),
        null);
  }

  /**
   * The gate control message a DEC carries.
   *
   * @throws PcmmFormatException if it carries none or one that cannot be read
   */
  public static GateMessage of(Decision d) throws PcmmFormatException {
    return of(d, Deviation.Sink.NONE);
  }

  /**
   * The gate control message a DEC carries, telling {@code deviations} what was read liberally.
   *
   * @throws PcmmFormatException if it carries none or one that cannot be read
   */
  public static GateMessage of(Decision d, Deviation.Sink deviations) throws PcmmFormatException {
    for (DecisionSet s : d.decisions()) {
      if (s.clientSpecific() != null) {
        return GateMessage.decode(s.clientSpecific().data(), deviations);
      }
    }
    throw PcmmFormatException.at(
        PcmmErrorCode.MISSING_REQUIRED_OBJECT,
        PcmmErrorCode.objectSubcode(PcmmObject.SNum.TRANSACTION_ID, 1),
        0,
        "DEC",
        "no Client Specific Decision Data",
        "the gate control message in Client Specific Decision Data (C-Num 6, C-Type 4)");
  }

  /**
   * The gate control message an RPT carries.
   *
   * @throws PcmmFormatException if it carries none or one that cannot be read
   */
  public static GateMessage of(Report r) throws PcmmFormatException {
    return of(r, Deviation.Sink.NONE);
  }

  /**
   * The gate control message an RPT carries, telling {@code deviations} what was read liberally.
   *
   * @throws PcmmFormatException if it carries none or one that cannot be read
   */
  public static GateMessage of(Report r, Deviation.Sink deviations) throws PcmmFormatException {
    if (r.clientSI() == null || r.clientSI().named()) {
      throw PcmmFormatException.at(
          PcmmErrorCode.MISSING_REQUIRED_OBJECT,
          PcmmErrorCode.objectSubcode(PcmmObject.SNum.TRANSACTION_ID, 1),
          0,
          "RPT",
          r.clientSI() == null ? "no ClientSI" : "a named ClientSI",
          "the gate control message in a signaled ClientSI (C-Num 9, C-Type 1)");
    }
    return GateMessage.decode(r.clientSI().data(), deviations);
  }
}
