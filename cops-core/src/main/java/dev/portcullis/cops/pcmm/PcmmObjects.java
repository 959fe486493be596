package dev.portcullis.cops.pcmm;

import static dev.portcullis.cops.pcmm.PcmmErrorCode.INCOMPATIBLE_ENVELOPE;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Reads and writes the sequence of PCMM objects in a COPS Client Specific Decision Data object
 * (DEC) or a signaled ClientSI (RPT, OPN). Reading never trusts a length: each object's Length is
 * checked against what remains and against the length its S-Num and S-Type define before a field is
 * read; a field out of its range is refused with its name and offset. Objects this implementation
 * does not know are kept ({@link PcmmObject.Unknown}) for the caller to report. Offsets are from
 * the start of the COPS object's contents.
 */
public final class PcmmObjects {
  private PcmmObjects() {}

  /** The objects in {@code data}, in order. */
  public static List<PcmmObject> decode(Bytes data) throws PcmmFormatException {
    byte[] b = data.toArray();
    List<PcmmObject> out = new ArrayList<>();
    int off = 0;
    while (off < b.length) {
      if (b.length - off < 4) {
        throw PcmmFormatException.at(
            INVALID_OBJECT, 0, off, "PCMM object header", (b.length - off) + " octets", "4");
      }
      int len = u16(b, off);
      int sNum = b[off + 2] & 0xFF;
      int sType = b[off + 3] & 0xFF;
      int sub = objectSubcode(sNum, sType);
      if (len < 4 || len % 4 != 0) {
        throw PcmmFormatException.at(
            INVALID_OBJECT,
            sub,
            off,
            "Length of object " + sNum + "/" + sType,
            len,
            "a multiple of 4, at least 4");
      }
      if (len > b.length - off) {
        throw PcmmFormatException.at(
            INVALID_OBJECT,
            sub,
            off,
            "Length of object " + sNum + "/" + sType,
            len,
            "<= " + (b.length - off) + ", the octets that remain");
      }
      out.add(new Reader(b, off, len, sNum, sType).object());
      off += len;
    }
    return out;
  }

  /** The wire form of {@code objects}, one after another. */
  public static Bytes encode(List<? extends PcmmObject> objects) {
    int n = 0;
    for (PcmmObject o : objects) {
      n += o.length();
    }
    ByteBuffer out = ByteBuffer.allocate(n);
    for (PcmmObject o : objects) {
      write(o, out);
    }
    return Bytes.of(out.array());
  }

  /** Writes one object, header and contents. */
  static void write(PcmmObject o, ByteBuffer out) {
    int start = out.position();
    out.putShort((short) o.length()).put((byte) o.sNum()).put((byte) o.sType());
    o.writeContent(out);
    if (out.position() - start != o.length()) {
      throw new IllegalStateException(
          o.getClass().getSimpleName()
              + " wrote "
              + (out.position() - start)
              + " octets of "
              + o.length());
    }
  }

  private static int u16(byte[] b, int off) {
    return (b[off] & 0xFF) << 8 | (b[off + 1] & 0xFF);
  }

  /** Reads the fields of one object whose Length has been checked against the buffer. */
  private static final class Reader {
    private final byte[] b;
    private final int start;
    private final int len;
    private final int sNum;
    private final int sType;
    private int pos;

    Reader(byte[] b, int start, int len, int sNum, int sType) {
      this.b = b;
      this.start = start;
      this.len = len;
      this.sNum = sNum;
      this.sType = sType;
      this.pos = start + 4;
    }

    private String name() {
      return "object " + sNum + "/" + sType;
    }

    private int sub() {
      return objectSubcode(sNum, sType);
    }

    /** Refuses any Length but {@code lengths}. */
    private void length(int... lengths) throws PcmmFormatException {
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
      int v = PcmmObjects.u16(b, pos);
      pos += 2;
      return v;
    }

    int i32() {
      int v = (b[pos] & 0xFF) << 24 | (b[pos + 1] & 0xFF) << 16 | PcmmObjects.u16(b, pos + 2);
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
          return trafficProfile();
        case SNum.EVENT_GENERATION_INFO:
          if (sType == 1) {
            length(44);
            Inet4Address prks = ip4();
            int pPort = u16();
            skip(2);
            Inet4Address srks = ip4();
            int sPort = u16();
            skip(2);
            return new PcmmObject.EventGenerationInfo(prks, pPort, srks, sPort, rest());
          }
          break;
        case SNum.VOLUME_BASED_USAGE_LIMIT:
          if (sType == 1) {
            length(12);
            return new PcmmObject.VolumeBasedUsageLimit(i64());
          }
          break;
        case SNum.TIME_BASED_USAGE_LIMIT:
          if (sType == 1) {
            length(8);
            return new PcmmObject.TimeBasedUsageLimit(u32());
          }
          break;
        case SNum.OPAQUE_DATA:
          if (sType == 1) {
            return new PcmmObject.OpaqueData(rest());
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
            return new PcmmObject.Psid(i32());
          }
          break;
        case SNum.SYNCH_OPTIONS:
          if (sType == 1) {
            length(8);
            skip(2);
            return new PcmmObject.SynchOptions(u8(), u8());
          }
          break;
        case SNum.MSG_RECEIPT_KEY:
          if (sType == 1) {
            length(8);
            return new PcmmObject.MsgReceiptKey(i32());
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
                flags, tcLow, tcHigh, tcMask, label, next, srcLen, dstLen, src, dst, t[0], t[1],
                t[2], t[3], t[4], t[5], t[6], t[7]);
          }
        default:
          return new PcmmObject.Unknown(sNum, sType, rest());
      }
    }

    private PcmmObject trafficProfile() throws PcmmFormatException {
      if (len < 8) {
        if (sType >= 1 && sType <= 8) {
          throw PcmmFormatException.at(
              INVALID_OBJECT, sub(), start, "Length of " + name(), len, ">= 8");
        }
        return new PcmmObject.Unknown(sNum, sType, rest());
      }
      int envelope = b[pos] & 0xFF;
      switch (sType) {
        case 1:
          {
            int count = envelopes(envelope, TrafficProfile.FlowSpec.ENVELOPE_OCTETS);
            skip(1);
            int service = u8();
            skip(2);
            return new TrafficProfile.FlowSpec(
                envelope,
                service,
                repeat(
                    count,
                    i ->
                        new TrafficProfile.FlowSpec.Envelope(
                            Float.intBitsToFloat(i32()),
                            Float.intBitsToFloat(i32()),
                            Float.intBitsToFloat(i32()),
                            u32(),
                            u32(),
                            Float.intBitsToFloat(i32()),
                            u32())));
          }
        case 2:
          return serviceClassName(envelope);
        case 3:
          {
            int count = envelopes(envelope, TrafficProfile.BestEffort.ENVELOPE_OCTETS);
            skip(4);
            return new TrafficProfile.BestEffort(
                envelope,
                repeat(
                    count,
                    i -> {
                      int priority = u8();
                      skip(3);
                      TrafficProfile.BestEffort.Envelope e =
                          new TrafficProfile.BestEffort.Envelope(
                              priority, u32(), u32(), u32(), u32(), u16());
                      skip(2);
                      return e;
                    }));
          }
        case 6:
          {
            int count = envelopes(envelope, TrafficProfile.UnsolicitedGrant.ENVELOPE_OCTETS);
            skip(4);
            return new TrafficProfile.UnsolicitedGrant(
                envelope,
                repeat(
                    count,
                    i -> {
                      long rtp = u32();
                      int size = u16();
                      int grants = u8();
                      skip(1);
                      return new TrafficProfile.UnsolicitedGrant.Envelope(
                          rtp, size, grants, u32(), u32());
                    }));
          }
        case 8:
          {
            int count = envelopes(envelope, TrafficProfile.Downstream.ENVELOPE_OCTETS);
            skip(4);
            return new TrafficProfile.Downstream(
                envelope,
                repeat(
                    count,
                    i -> {
                      int priority = u8();
                      skip(3);
                      long sustained = u32();
                      long burst = u32();
                      long reserved = u32();
                      int packet = u16();
                      skip(2);
                      return new TrafficProfile.Downstream.Envelope(
                          priority, sustained, burst, reserved, packet, u32());
                    }));
          }
        case 4:
        case 5:
        case 7:
          return new TrafficProfile.Other(sType, rest());
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

    /** The number of envelopes the Length holds, checked against the Envelope octet. */
    private int envelopes(int envelope, int octets) throws PcmmFormatException {
      int body = len - 8;
      if (body % octets != 0 || body / octets < 1 || body / octets > 3) {
        throw PcmmFormatException.at(
            INVALID_OBJECT,
            sub(),
            start,
            "Length of " + name(),
            len,
            (8 + octets) + ", " + (8 + 2 * octets) + " or " + (8 + 3 * octets));
      }
      int count = body / octets;
      if (envelope != (1 << count) - 1) {
        throw PcmmFormatException.at(
            INCOMPATIBLE_ENVELOPE,
            sub(),
            start + 4,
            "Envelope of " + name(),
            envelope,
            ((1 << count) - 1) + " for the " + count + " envelopes its Length holds");
      }
      return count;
    }

    private PcmmObject serviceClassName(int envelope) throws PcmmFormatException {
      if (len < 12 || len > 24) {
        throw PcmmFormatException.at(
            INVALID_OBJECT, sub(), start, "Length of " + name(), len, "12 to 24");
      }
      skip(4);
      int nameStart = pos;
      int end = start + len;
      int zero = nameStart;
      while (zero < end && b[zero] != 0) {
        zero++;
      }
      for (int i = zero; i < end; i++) {
        if (b[i] != 0) {
          throw PcmmFormatException.at(
              INVALID_FIELD_VALUE, sub(), i, "Service Class Name padding", b[i] & 0xFF, "0");
        }
      }
      if (zero == end || zero == nameStart || end - zero > 4) {
        throw PcmmFormatException.at(
            INVALID_FIELD_VALUE,
            sub(),
            nameStart,
            "Service Class Name",
            "\"" + new String(b, nameStart, zero - nameStart, StandardCharsets.US_ASCII) + "\"",
            "1 to 15 characters ended by a zero, padded to 4 octets");
      }
      String name = new String(b, nameStart, zero - nameStart, StandardCharsets.US_ASCII);
      pos = end;
      return new TrafficProfile.ServiceClassName(envelope, name);
    }

    private static <E> List<E> repeat(int n, IntFunction<E> one) {
      List<E> l = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        l.add(one.apply(i));
      }
      return l;
    }
  }
}
