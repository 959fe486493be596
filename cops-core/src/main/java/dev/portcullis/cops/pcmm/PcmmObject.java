package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.Bytes;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One PCMM object: a 4-byte header (Length of the whole object in octets, S-Num, S-Type) and its
 * contents. Every object PCMM defines is a multiple of 4 octets long, so objects follow one another
 * without padding. Numeric fields are unsigned and range-checked when an object is made.
 */
public sealed interface PcmmObject
    permits PcmmObject.TransactionId,
        PcmmObject.Amid,
        PcmmObject.SubscriberId,
        PcmmObject.GateId,
        PcmmObject.GateSpec,
        PcmmClassifier,
        TrafficProfile,
        GateExtra,
        PcmmObject.GateTimeInfo,
        PcmmObject.GateUsageInfo,
        PcmmObject.PacketCableError,
        PcmmObject.GateState,
        PcmmObject.VersionInfo,
        AfterI02,
        PcmmObject.Unknown {

  /** S-Num values. */
  interface SNum {
    int TRANSACTION_ID = 1;
    int AMID = 2;
    int SUBSCRIBER_ID = 3;
    int GATE_ID = 4;
    int GATE_SPEC = 5;
    int CLASSIFIER = 6;
    int TRAFFIC_PROFILE = 7;
    int EVENT_GENERATION_INFO = 8;
    int VOLUME_BASED_USAGE_LIMIT = 9;
    int TIME_BASED_USAGE_LIMIT = 10;
    int OPAQUE_DATA = 11;
    int GATE_TIME_INFO = 12;
    int GATE_USAGE_INFO = 13;
    int PACKETCABLE_ERROR = 14;
    int GATE_STATE = 15;
    int VERSION_INFO = 16;
    int PSID = 17;
    int SYNCH_OPTIONS = 18;
    int MSG_RECEIPT_KEY = 19;
  }

  int sNum();

  default int sType() {
    return 1;
  }

  /** Octets after the 4-byte header. */
  int contentLength();

  /** Writes the contents (not the header). */
  void writeContent(ByteBuffer out);

  /** The Length field's value: header and contents. */
  default int length() {
    return 4 + contentLength();
  }

  /** Transaction ID (1/1): the sender's token to match an answer, and the Gate Command Type. */
  record TransactionId(int id, int command) implements PcmmObject {
    public TransactionId {
      Fields.u16("Transaction ID", id);
      Fields.u16("Gate Command Type", command);
    }

    public TransactionId(int id, GateCommand command) {
      this(id, command.code());
    }

    /** The command, or null for a code this implementation does not know. */
    public GateCommand gateCommand() {
      return GateCommand.isDefined(command) ? GateCommand.valueOf(command) : null;
    }

    @Override
    public int sNum() {
      return SNum.TRANSACTION_ID;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) id).putShort((short) command);
    }
  }

  /** AMID (2/1): the Application Type and the Application Manager Tag, in that order. */
  record Amid(int applicationType, int applicationManagerTag) implements PcmmObject {
    public Amid {
      Fields.u16("Application Type", applicationType);
      Fields.u16("Application Manager Tag", applicationManagerTag);
    }

    @Override
    public int sNum() {
      return SNum.AMID;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) applicationType).putShort((short) applicationManagerTag);
    }
  }

  /** Subscriber ID: the subscriber's IPv4 (3/1) or IPv6 (3/2) address. */
  record SubscriberId(InetAddress address) implements PcmmObject {
    public SubscriberId {
      Objects.requireNonNull(address, "address");
    }

    @Override
    public int sNum() {
      return SNum.SUBSCRIBER_ID;
    }

    @Override
    public int sType() {
      return address instanceof Inet6Address ? 2 : 1;
    }

    @Override
    public int contentLength() {
      return address.getAddress().length;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put(address.getAddress());
    }
  }

  /** Gate ID (4/1): the CMTS's 32-bit name for a gate, unique on that CMTS. */
  record GateId(int id) implements PcmmObject {
    @Override
    public int sNum() {
      return SNum.GATE_ID;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putInt(id);
    }

    @Override
    public String toString() {
      return "GateId[0x" + Integer.toHexString(id) + "]";
    }
  }

  /**
   * Gate Spec (5/1): Flags (bit 0 direction: 0 downstream, 1 upstream; bit 1 DSCP/TOS overwrite),
   * DSCP/TOS and its mask, Session Class ID, and the timers T1 to T4 in seconds.
   */
  record GateSpec(
      int flags, int dscpTos, int dscpTosMask, int sessionClass, int t1, int t2, int t3, int t4)
      implements PcmmObject {
    public static final int UPSTREAM = 0x01;
    public static final int DSCP_OVERWRITE = 0x02;

    public GateSpec {
      Fields.u8("Gate Spec Flags", flags);
      Fields.u8("DSCP/TOS", dscpTos);
      Fields.u8("DSCP/TOS Mask", dscpTosMask);
      Fields.u8("Session Class ID", sessionClass);
      Fields.u16("Timer T1", t1);
      Fields.u16("Timer T2", t2);
      Fields.u16("Timer T3", t3);
      Fields.u16("Timer T4", t4);
    }

    public boolean upstream() {
      return (flags & UPSTREAM) != 0;
    }

    @Override
    public int sNum() {
      return SNum.GATE_SPEC;
    }

    @Override
    public int contentLength() {
      return 12;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) flags).put((byte) dscpTos).put((byte) dscpTosMask).put((byte) sessionClass);
      out.putShort((short) t1).putShort((short) t2).putShort((short) t3).putShort((short) t4);
    }
  }

  /** Gate Time Info (12/1): seconds the gate has been committed, 32 bits unsigned. */
  record GateTimeInfo(long seconds) implements PcmmObject {
    public GateTimeInfo {
      Fields.u32("Time Committed", seconds);
    }

    @Override
    public int sNum() {
      return SNum.GATE_TIME_INFO;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putInt((int) seconds);
    }
  }

  /**
   * Gate Usage Info (13/1): octets carried by the gate's flow. I02 gives it 32 bits (Length 8);
   * later issues 64 (Length 12): {@code wide} says which, and both are read.
   */
  record GateUsageInfo(long octets, boolean wide) implements PcmmObject {
    public GateUsageInfo {
      if (!wide) {
        Fields.u32("Octet Count", octets);
      }
    }

    @Override
    public int sNum() {
      return SNum.GATE_USAGE_INFO;
    }

    @Override
    public int contentLength() {
      return wide ? 8 : 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      if (wide) {
        out.putLong(octets);
      } else {
        out.putInt((int) octets);
      }
    }
  }

  /** PacketCable Error (14/1): Error-Code and Error-Subcode ({@link PcmmErrorCode}). */
  record PacketCableError(int code, int subcode) implements PcmmObject {
    public PacketCableError {
      Fields.u16("Error-Code", code);
      Fields.u16("Error-Subcode", subcode);
    }

    public PacketCableError(PcmmErrorCode code, int subcode) {
      this(code.code(), subcode);
    }

    @Override
    public int sNum() {
      return SNum.PACKETCABLE_ERROR;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) code).putShort((short) subcode);
    }

    @Override
    public String toString() {
      return "PacketCableError["
          + code
          + (PcmmErrorCode.isDefined(code) ? " " + PcmmErrorCode.valueOf(code).description() : "")
          + ", subcode 0x"
          + Integer.toHexString(subcode)
          + "]";
    }
  }

  /**
   * Gate State (15/1): State (1 Idle/Closed, 2 Authorized, 3 Reserved, 4 Committed) and the Reason
   * for a change.
   */
  record GateState(int state, int reason) implements PcmmObject {
    public static final int IDLE = 1;
    public static final int AUTHORIZED = 2;
    public static final int RESERVED = 3;
    public static final int COMMITTED = 4;

    public GateState {
      Fields.u16("State", state);
      Fields.u16("Reason", reason);
    }

    @Override
    public int sNum() {
      return SNum.GATE_STATE;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) state).putShort((short) reason);
    }
  }

  /** Version Info (16/1): the PCMM version a CMTS speaks, in its Client-Open. */
  record VersionInfo(int major, int minor) implements PcmmObject {
    public VersionInfo {
      Fields.u16("Major Version Number", major);
      Fields.u16("Minor Version Number", minor);
    }

    @Override
    public int sNum() {
      return SNum.VERSION_INFO;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) major).putShort((short) minor);
    }
  }

  /**
   * An object this implementation does not know (an S-Num, or an S-Type of a known S-Num, it does
   * not define): kept whole, so that it can be reported by its S-Num and S-Type, and passed on.
   */
  record Unknown(int sNum, int sType, Bytes content) implements PcmmObject {
    public Unknown {
      Fields.u8("S-Num", sNum);
      Fields.u8("S-Type", sType);
      if (content.length() % 4 != 0 || content.length() > 0xFFFF - 4) {
        throw new IllegalArgumentException(
            "object "
                + sNum
                + "/"
                + sType
                + ": "
                + content.length()
                + " octets of contents"
                + " (expected: a multiple of 4, at most 65528)");
      }
    }

    @Override
    public int contentLength() {
      return content.length();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put(content.toArray());
    }
  }
}
