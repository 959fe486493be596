package dev.portcullis.cops.pcmm;

import static dev.portcullis.cops.pcmm.PcmmErrorCode.INVALID_FIELD_VALUE;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.INVALID_OBJECT;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.objectSubcode;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.pcmm.PcmmClassifier.Classifier;
import dev.portcullis.cops.pcmm.PcmmClassifier.ExtendedClassifier;
import dev.portcullis.cops.pcmm.PcmmClassifier.Ipv6Classifier;
import dev.portcullis.cops.pcmm.PcmmObject.SNum;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Reads the fields of one PCMM object whose Length has been checked against the buffer: each
 * object's own Length checked against what its S-Num and S-Type define before a field is read, a
 * range check turned into Invalid Field Value at the object. {@link TrafficProfiles} reads the
 * traffic profiles with it.
 */
final class PcmmReader {
  final byte[] b;
  final int start;
  final int len;
  final int sNum;
  final int sType;
  final Deviation.Sink deviations;
  int pos;

  PcmmReader(byte[] b, int start, int len, int sNum, int sType, Deviation.Sink deviations) {
    this.b = b;
    this.deviations = deviations;
    this.start = start;
    this.len = len;
    this.sNum = sNum;
    this.sType = sType;
    this.pos = start + 4;
  }

  String name() {
    return "object " + sNum + "/" + sType;
  }

  int sub() {
    return objectSubcode(sNum, sType);
  }

  /** Refuses any Length but {@code lengths}. */
  void length(int... lengths) throws PcmmFormatException {
    StringBuilder want = new StringBuilder();
    for (int l : lengths) {
      if (len == l) {
        return;
      }
      want.append(want.length() == 0 ? "" : " or ").append(l);
    }
    throw PcmmFormatException.at(
        INVALID_OBJECT, sub(), start, "Length of " + name(), len, want.toString());
  }

  int u8() {
    return b[pos++] & 0xFF;
  }

  int u16() {
    int v = u16(b, pos);
    pos += 2;
    return v;
  }

  int i32() {
    int v = (b[pos] & 0xFF) << 24 | (b[pos + 1] & 0xFF) << 16 | u16(b, pos + 2);
    pos += 4;
    return v;
  }

  long u32() {
    return i32() & 0xFFFF_FFFFL;
  }

  long i64() {
    return (long) i32() << 32 | u32();
  }

  void skip(int n) {
    pos += n;
  }

  Inet4Address ip4() {
    return (Inet4Address) address(4);
  }

  Inet6Address ip6() throws PcmmFormatException {
    InetAddress a = address(16);
    if (!(a instanceof Inet6Address six)) {
      // the JDK turns an IPv4-mapped IPv6 address into an Inet4Address
      throw PcmmFormatException.at(
          INVALID_FIELD_VALUE,
          sub(),
          pos - 16,
          "IPv6 address in " + name(),
          a.getHostAddress(),
          "not an IPv4-mapped address");
    }
    return six;
  }

  private InetAddress address(int n) {
    byte[] a = new byte[n];
    System.arraycopy(b, pos, a, 0, n);
    pos += n;
    try {
      return InetAddress.getByAddress(a);
    } catch (UnknownHostException e) {
      throw new AssertionError(e); // 4 or 16 octets are always an address
    }
  }

  Bytes rest() {
    Bytes r = Bytes.of(b, pos, start + len - pos);
    pos = start + len;
    return r;
  }

  /** Builds the object, turning a range check into an Invalid Field Value at the object. */
  PcmmObject object() throws PcmmFormatException {
    try {
      return read();
    } catch (IllegalArgumentException e) {
      throw PcmmFormatException.at(
          INVALID_FIELD_VALUE, sub(), start, name(), e.getMessage(), "a valid value");
    }
  }

  private PcmmObject read() throws PcmmFormatException {
    switch (sNum) {
      case SNum.TRANSACTION_ID:
        if (sType == 1) {
          length(8);
          return new PcmmObject.TransactionId(u16(), u16());
        }
        break;
      case SNum.AMID:
        if (sType == 1) {
          length(8);
          return new PcmmObject.Amid(u16(), u16());
        }
        break;
      case SNum.SUBSCRIBER_ID:
        if (sType == 1) {
          length(8);
          return new PcmmObject.SubscriberId(ip4());
        }
        if (sType == 2) {
          length(20);
          return new PcmmObject.SubscriberId(ip6());
        }
        break;
      case SNum.GATE_ID:
        if (sType == 1) {
          length(8);
          return new PcmmObject.GateId(i32());
        }
        break;
      case SNum.GATE_SPEC:
        if (sType == 1) {
          length(16);
          return new PcmmObject.GateSpec(u8(), u8(), u8(), u8(), u16(), u16(), u16(), u16());
        }
        break;
      case SNum.CLASSIFIER:
        return classifier();
      case SNum.TRAFFIC_PROFILE:
        return TrafficProfiles.read(this);
      case SNum.EVENT_GENERATION_INFO:
        if (sType == 1) {
          length(44);
          Inet4Address prks = ip4();
          int pPort = u16();
          skip(2);
          Inet4Address srks = ip4();
          int sPort = u16();
          skip(2);
          return new GateExtra.EventGenerationInfo(prks, pPort, srks, sPort, rest());
        }
        break;
      case SNum.VOLUME_BASED_USAGE_LIMIT:
        if (sType == 1) {
          length(12);
          return new GateExtra.VolumeBasedUsageLimit(i64());
        }
        break;
      case SNum.TIME_BASED_USAGE_LIMIT:
        if (sType == 1) {
          length(8);
          return new GateExtra.TimeBasedUsageLimit(u32());
        }
        break;
      case SNum.OPAQUE_DATA:
        if (sType == 1) {
          return new GateExtra.OpaqueData(rest());
        }
        break;
      case SNum.GATE_TIME_INFO:
        if (sType == 1) {
          length(8);
          return new PcmmObject.GateTimeInfo(u32());
        }
        break;
      case SNum.GATE_USAGE_INFO:
        if (sType == 1) {
          length(8, 12);
          return len == 8
              ? new PcmmObject.GateUsageInfo(u32(), false)
              : new PcmmObject.GateUsageInfo(i64(), true);
        }
        break;
      case SNum.PACKETCABLE_ERROR:
        if (sType == 1) {
          length(8);
          return new PcmmObject.PacketCableError(u16(), u16());
        }
        break;
      case SNum.GATE_STATE:
        if (sType == 1) {
          length(8);
          return new PcmmObject.GateState(u16(), u16());
        }
        break;
      case SNum.VERSION_INFO:
        if (sType == 1) {
          length(8);
          return new PcmmObject.VersionInfo(u16(), u16());
        }
        break;
      case SNum.PSID:
        if (sType == 1) {
          length(8);
          return new AfterI02.Psid(i32());
        }
        break;
      case SNum.SYNCH_OPTIONS:
        if (sType == 1) {
          length(8);
          skip(2);
          return new AfterI02.SynchOptions(u8(), u8());
        }
        break;
      case SNum.MSG_RECEIPT_KEY:
        if (sType == 1) {
          length(8);
          return new AfterI02.MsgReceiptKey(i32());
        }
        break;
      default:
        break;
    }
    return new PcmmObject.Unknown(sNum, sType, rest());
  }

  private PcmmObject classifier() throws PcmmFormatException {
    switch (sType) {
      case 1:
        length(24);
        {
          int protocol = u16();
          int tos = u8();
          int mask = u8();
          Inet4Address src = ip4();
          Inet4Address dst = ip4();
          int sp = u16();
          int dp = u16();
          return new Classifier(protocol, tos, mask, src, dst, sp, dp, u8());
        }
      case 2:
        length(40);
        {
          int protocol = u16();
          int tos = u8();
          int mask = u8();
          Inet4Address src = ip4();
          Inet4Address srcMask = ip4();
          Inet4Address dst = ip4();
          Inet4Address dstMask = ip4();
          int[] t = portsAndControl();
          return new ExtendedClassifier(
              protocol, tos, mask, src, srcMask, dst, dstMask, t[0], t[1], t[2], t[3], t[4], t[5],
              t[6], t[7]);
        }
      case 3:
        length(64);
        {
          int flags = u8();
          int tcLow = u8();
          int tcHigh = u8();
          int tcMask = u8();
          int label = i32();
          int next = u16();
          int srcLen = u8();
          int dstLen = u8();
          Inet6Address src = ip6();
          Inet6Address dst = ip6();
          int[] t = portsAndControl();
          return new Ipv6Classifier(
              flags, tcLow, tcHigh, tcMask, label, next, srcLen, dstLen, src, dst, t[0], t[1], t[2],
              t[3], t[4], t[5], t[6], t[7]);
        }
      default:
        return new PcmmObject.Unknown(sNum, sType, rest());
    }
  }

  /**
   * The extended classifiers' common end: source and destination port ranges, ClassifierID,
   * Priority, Activation State, Action (the three reserved octets after it are not read).
   */
  private int[] portsAndControl() {
    return new int[] {u16(), u16(), u16(), u16(), u16(), u8(), u8(), u8()};
  }

  static int u16(byte[] b, int off) {
    return (b[off] & 0xFF) << 8 | (b[off + 1] & 0xFF);
  }
}
