package dev.portcullis.cops.pcmm;

import java.nio.ByteBuffer;

/**
 * Objects that issues of PKT-SP-MM after I02 added, read so that a CMTS speaking a later issue is
 * understood: PSID, Synch Options and Msg Receipt Key (layouts as Wireshark's dissector reads
 * them).
 */
public sealed interface AfterI02 extends PcmmObject
    permits AfterI02.Psid, AfterI02.SynchOptions, AfterI02.MsgReceiptKey {

  /** PSID (17/1, after I02): the Policy Server's 32-bit identifier. */
  record Psid(int id) implements AfterI02 {
    @Override
    public int sNum() {
      return SNum.PSID;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putInt(id);
    }
  }

  /**
   * Synch Options (18/1, after I02): two reserved octets, Report Type (0 standard, 1 complete gate
   * data) and Synch Type (0 full, 1 incremental).
   */
  record SynchOptions(int reportType, int synchType) implements AfterI02 {
    /** Report Type 0: each gate's Synch-Report carries its identity and state. */
    public static final int STANDARD_REPORT = 0;

    /** Report Type 1: each gate's Synch-Report carries its whole gate data as well. */
    public static final int COMPLETE_GATE_DATA = 1;

    /** Synch Type 0: every gate. */
    public static final int FULL = 0;

    /** Synch Type 1: only gates changed since the connection was lost. */
    public static final int INCREMENTAL = 1;

    public SynchOptions {
      Fields.u8("Report Type", reportType);
      Fields.u8("Synch Type", synchType);
    }

    @Override
    public int sNum() {
      return SNum.SYNCH_OPTIONS;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) 0).put((byte) reportType).put((byte) synchType);
    }
  }

  /** Msg Receipt Key (19/1, after I02): 32 bits matching a Msg-Receipt to its message. */
  record MsgReceiptKey(int key) implements AfterI02 {
    @Override
    public int sNum() {
      return SNum.MSG_RECEIPT_KEY;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putInt(key);
    }
  }
}
