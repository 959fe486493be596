package dev.portcullis.cops;

import static dev.portcullis.cops.ErrorCode.BAD_HANDLE;
import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;
import static dev.portcullis.cops.ErrorCode.MANDATORY_OBJECT_MISSING;
import static dev.portcullis.cops.ErrorCode.UNKNOWN_OBJECT;

import dev.portcullis.cops.CopsMessage.DecisionSet;
import dev.portcullis.cops.CopsObject.AcctTimer;
import dev.portcullis.cops.CopsObject.ClientSI;
import dev.portcullis.cops.CopsObject.Context;
import dev.portcullis.cops.CopsObject.DecisionData;
import dev.portcullis.cops.CopsObject.DecisionDataKind;
import dev.portcullis.cops.CopsObject.DecisionFlags;
import dev.portcullis.cops.CopsObject.ErrorObject;
import dev.portcullis.cops.CopsObject.Handle;
import dev.portcullis.cops.CopsObject.Integrity;
import dev.portcullis.cops.CopsObject.IntegrityObject;
import dev.portcullis.cops.CopsObject.IntegrityTls;
import dev.portcullis.cops.CopsObject.Interface;
import dev.portcullis.cops.CopsObject.KaTimer;
import dev.portcullis.cops.CopsObject.PdpAddress;
import dev.portcullis.cops.CopsObject.PepId;
import dev.portcullis.cops.CopsObject.Reason;
import dev.portcullis.cops.CopsObject.ReportTypeObject;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes COPS messages to bytes and decodes exactly one message from a frame, enforcing the common
 * header rules, every object's layout and the per-operation grammar of RFC 2748 section 3.
 * Stateless and thread-safe; the Netty handlers are {@link CopsDecoder} and {@link CopsEncoder}.
 */
public final class CopsCodec {
  /** Default largest message accepted: COPS-PR configuration decisions can be large. */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024;

  /** Hard ceiling for the configurable maximum. */
  public static final int MAX_MESSAGE_SIZE_LIMIT = 16 * 1024 * 1024;

  private CopsCodec() {}

  /** A decoded message and where its Integrity object starts (for digest verification), or -1. */
  public record Decoded(CopsMessage message, int integrityOffset) {}

  // ---- encoding --------------------------------------------------------------------------------

  /** Writes {@code m} to {@code out}: common header, then every object padded to 32 bits. */
  public static void encode(CopsMessage m, ByteBuf out) {
    List<CopsObject> objects = m.objects();
    int length = CopsMessage.HEADER_LENGTH;
    for (CopsObject o : objects) {
      length += o.paddedLength();
    }
    out.ensureWritable(length);
    out.writeByte(CopsMessage.VERSION << 4 | (m.solicited() ? CopsMessage.FLAG_SOLICITED : 0));
    out.writeByte(m.opCode().code());
    out.writeShort(m.clientType());
    out.writeInt(length);
    for (CopsObject o : objects) {
      writeObject(o, out);
    }
  }

  /** The encoded bytes of {@code m}. */
  public static byte[] encode(CopsMessage m) {
    ByteBuf b = Unpooled.buffer(m.length());
    encode(m, b);
    byte[] a = new byte[b.readableBytes()];
    b.readBytes(a);
    return a;
  }

  /**
   * Integrity-TLS is 16 reserved bits then the 16-bit Flags (RFC 4261 section 4.1). A peer that
   * swapped the halves (Portcullis 0.1 did) sends StartTLS in the reserved half and zero Flags;
   * that combination has no other meaning, and taking it as StartTLS can only lead to a TLS
   * handshake that must succeed on its own, so it is read as StartTLS. Other reserved bits are
   * ignored, as the RFC asks.
   */
  private static IntegrityTls integrityTls(int reserved, int flags) {
    return new IntegrityTls(
        flags == 0 && reserved == IntegrityTls.FLAG_START_TLS
            ? IntegrityTls.FLAG_START_TLS
            : flags);
  }

  static void writeObject(CopsObject o, ByteBuf out) {
    int len = o.objectLength();
    out.writeShort(len);
    out.writeByte(o.cNum().code());
    out.writeByte(o.cType());
    o.writeContent(out);
    out.writeZero(o.paddedLength() - len);
  }

  // ---- decoding --------------------------------------------------------------------------------

  /**
   * Checks the common header at the reader index of {@code in} (8 readable bytes needed) and
   * returns the message length. Used by the framer before it waits for the body, so a bad or
   * oversized length is refused before a byte of it is buffered.
   */
  static int checkHeader(ByteBuf in, int maxMessageSize) throws CopsCodecException {
    int s = in.readerIndex();
    int b0 = in.getUnsignedByte(s);
    int clientType = in.getUnsignedShort(s + 2);
    int opCode = in.getUnsignedByte(s + 1);
    OpCode op = OpCode.isDefined(opCode) ? OpCode.valueOf(opCode) : null;
    try {
      if (b0 >>> 4 != CopsMessage.VERSION) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, 0, "version", b0 >>> 4, String.valueOf(CopsMessage.VERSION));
      }
      if ((b0 & 0x0F & ~CopsMessage.FLAG_SOLICITED) != 0) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            0,
            "flags",
            String.format("0x%x", b0 & 0x0F),
            "0 or 0x1, the solicited flag; other bits must be 0");
      }
      if (op == null) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, 1, "op code", in.getUnsignedByte(s + 1), "1 to 10");
      }
      long len = in.getUnsignedInt(s + 4);
      if (len < CopsMessage.HEADER_LENGTH) {
        throw CopsCodecException.at(BAD_MESSAGE_FORMAT, 0, 4, "message length", len, ">= 8");
      }
      if ((len & 3) != 0) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, 4, "message length", len, "a multiple of 4");
      }
      if (len > maxMessageSize) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, 4, "message length", len, "<= " + maxMessageSize);
      }
      return (int) len;
    } catch (CopsCodecException e) {
      throw e.in(clientType, op, null);
    }
  }

  /**
   * Decodes the one message that {@code frame}'s readable bytes hold; the reader index is not
   * moved.
   *
   * @throws CopsCodecException for any malformed input, with the RFC error code to report
   */
  public static Decoded decode(ByteBuf frame, int maxMessageSize) throws CopsCodecException {
    int base = frame.readerIndex();
    int available = frame.readableBytes();
    if (available < CopsMessage.HEADER_LENGTH) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, 0, "message", available + " bytes", ">= 8, the common header");
    }
    int len = checkHeader(frame, maxMessageSize);
    int clientType = frame.getUnsignedShort(base + 2);
    int opCode = frame.getUnsignedByte(base + 1);
    OpCode op = OpCode.isDefined(opCode) ? OpCode.valueOf(opCode) : null;
    boolean solicited = (frame.getUnsignedByte(base) & CopsMessage.FLAG_SOLICITED) != 0;
    if (len != available) {
      throw CopsCodecException.at(
              BAD_MESSAGE_FORMAT, 0, 4, "message length", len, available + ", the bytes framed")
          .in(clientType, op, null);
    }
    DecodedObjects objects = new DecodedObjects();
    try {
      int off = CopsMessage.HEADER_LENGTH;
      while (off < len) {
        off = readObject(frame, base, off, len, objects);
      }
      Cursor c = new Cursor(objects);
      CopsMessage m = grammar(op, clientType, solicited, c);
      return new Decoded(m, c.integrityOffset);
    } catch (CopsCodecException e) {
      throw e.in(clientType, op, objects.handle);
    }
  }

  /** Decodes a byte array holding exactly one message. */
  public static CopsMessage decode(byte[] message) throws CopsCodecException {
    return decode(Unpooled.wrappedBuffer(message), MAX_MESSAGE_SIZE_LIMIT).message();
  }

  /** The objects of a message with their offsets, and the handle once one is read. */
  private static final class DecodedObjects {
    final List<CopsObject> list = new ArrayList<>(8);
    int[] offsets = new int[8];
    Handle handle;

    void add(CopsObject o, int off) {
      if (list.size() == offsets.length) {
        offsets = Arrays.copyOf(offsets, offsets.length * 2);
      }
      offsets[list.size()] = off;
      list.add(o);
      if (handle == null && o instanceof Handle) {
        handle = (Handle) o;
      }
    }
  }

  private static int readObject(ByteBuf b, int base, int off, int msgLen, DecodedObjects out)
      throws CopsCodecException {
    if (msgLen - off < CopsObject.HEADER_LENGTH) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, off, "object header", (msgLen - off) + " bytes", "4");
    }
    int objLen = b.getUnsignedShort(base + off);
    int cNum = b.getUnsignedByte(base + off + 2);
    int cType = b.getUnsignedByte(base + off + 3);
    if (objLen < CopsObject.HEADER_LENGTH) {
      throw CopsCodecException.at(BAD_MESSAGE_FORMAT, 0, off, "object length", objLen, ">= 4");
    }
    int padded = (objLen + 3) & ~3;
    if (padded > msgLen - off) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT,
          0,
          off,
          "object length",
          objLen,
          "<= " + (msgLen - off) + ", the rest of the message");
    }
    if (!CNum.isDefined(cNum) || !CNum.valueOf(cNum).definesCType(cType)) {
      throw CopsCodecException.at(
          UNKNOWN_OBJECT,
          ErrorCode.objectSubCode(cNum, cType),
          off,
          "C-Num/C-Type",
          cNum + "/" + cType,
          "an object RFC 2748 or RFC 4261 defines");
    }
    CNum c = CNum.valueOf(cNum);
    int content = objLen - CopsObject.HEADER_LENGTH;
    out.add(parseObject(b, base + off + CopsObject.HEADER_LENGTH, content, c, cType, off), off);
    return off + padded;
  }

  private static void exactLength(CNum c, int cType, int content, int expected, int off)
      throws CopsCodecException {
    if (content != expected) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT,
          0,
          off,
          "object length",
          content + CopsObject.HEADER_LENGTH,
          (expected + CopsObject.HEADER_LENGTH) + " for " + c.description() + " C-Type " + cType);
    }
  }

  private static byte[] bytes(ByteBuf b, int at, int n) {
    byte[] a = new byte[n];
    b.getBytes(at, a);
    return a;
  }

  private static InetAddress address(ByteBuf b, int at, int n) {
    try {
      // Inet6Address.getByAddress keeps IPv4-mapped addresses as IPv6, so C-Type 2 stays 2.
      return n == 4
          ? InetAddress.getByAddress(bytes(b, at, 4))
          : Inet6Address.getByAddress(null, bytes(b, at, 16), -1);
    } catch (UnknownHostException e) {
      throw new AssertionError("4 or 16 bytes are always an address", e);
    }
  }

  private static CopsObject parseObject(ByteBuf b, int at, int n, CNum c, int cType, int off)
      throws CopsCodecException {
    switch (c) {
      case HANDLE:
        if (n == 0) {
          throw CopsCodecException.at(BAD_HANDLE, 0, off, "Client Handle", "empty", ">= 1 byte");
        }
        return new Handle(Bytes.wrap(bytes(b, at, n)));
      case CONTEXT:
        exactLength(c, cType, n, 4, off);
        return new Context(b.getUnsignedShort(at), b.getUnsignedShort(at + 2));
      case IN_INTERFACE:
      case OUT_INTERFACE:
        {
          int addr = cType == 1 ? 4 : 16;
          exactLength(c, cType, n, addr + 4, off);
          return new Interface(
              c == CNum.OUT_INTERFACE, address(b, at, addr), b.getUnsignedInt(at + addr));
        }
      case REASON:
        exactLength(c, cType, n, 4, off);
        return new Reason(b.getUnsignedShort(at), b.getUnsignedShort(at + 2));
      case DECISION:
      case LPDP_DECISION:
        {
          boolean lpdp = c == CNum.LPDP_DECISION;
          if (cType == 1) {
            exactLength(c, cType, n, 4, off);
            return new DecisionFlags(lpdp, b.getUnsignedShort(at), b.getUnsignedShort(at + 2));
          }
          return new DecisionData(
              lpdp, DecisionDataKind.fromCType(cType), Bytes.wrap(bytes(b, at, n)));
        }
      case ERROR:
        exactLength(c, cType, n, 4, off);
        return new ErrorObject(b.getUnsignedShort(at), b.getUnsignedShort(at + 2));
      case CLIENT_SI:
        return new ClientSI(cType == 2, Bytes.wrap(bytes(b, at, n)));
      case KA_TIMER:
        exactLength(c, cType, n, 4, off);
        return new KaTimer(b.getUnsignedShort(at + 2));
      case PEP_ID:
        return pepId(b, at, n, off);
      case REPORT_TYPE:
        exactLength(c, cType, n, 4, off);
        return new ReportTypeObject(b.getUnsignedShort(at));
      case PDP_REDIRECT_ADDRESS:
      case LAST_PDP_ADDRESS:
        {
          int addr = cType == 1 ? 4 : 16;
          exactLength(c, cType, n, addr + 4, off);
          return new PdpAddress(
              c == CNum.LAST_PDP_ADDRESS, address(b, at, addr), b.getUnsignedShort(at + addr + 2));
        }
      case ACCT_TIMER:
        exactLength(c, cType, n, 4, off);
        return new AcctTimer(b.getUnsignedShort(at + 2));
      case INTEGRITY:
        if (cType == 2) {
          exactLength(c, cType, n, 4, off);
          return integrityTls(b.getUnsignedShort(at), b.getUnsignedShort(at + 2));
        }
        if (n < 8) {
          throw CopsCodecException.at(
              BAD_MESSAGE_FORMAT, 0, off, "object length", n + 4, ">= 12 for Integrity C-Type 1");
        }
        return new Integrity(
            b.getUnsignedInt(at), b.getUnsignedInt(at + 4), Bytes.wrap(bytes(b, at + 8, n - 8)));
      default:
        throw new AssertionError(c);
    }
  }

  private static PepId pepId(ByteBuf b, int at, int n, int off) throws CopsCodecException {
    int nul = -1;
    for (int i = 0; i < n; i++) {
      int ch = b.getUnsignedByte(at + i);
      if (ch == 0) {
        nul = i;
        break;
      }
      if (ch > 0x7F) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, off + 4 + i, "PEPID character", ch, "ASCII (0x01 to 0x7f)");
      }
    }
    if (nul < 0) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, off, "PEPID", "no NUL terminator", "a NUL-terminated string");
    }
    if (nul == 0) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, off, "PEPID", "empty", "at least one character before the NUL");
    }
    return new PepId(b.toString(at, nul, StandardCharsets.US_ASCII));
  }

  // ---- grammar (RFC 2748 section 3) ------------------------------------------------------------

  /** Walks the object list in order, the way the grammar reads it. */
  private static final class Cursor {
    final List<CopsObject> objs;
    final int[] offs;
    int i;
    int integrityOffset = -1;

    Cursor(DecodedObjects o) {
      this.objs = o.list;
      this.offs = o.offsets;
    }

    boolean at(CNum c) {
      return i < objs.size() && objs.get(i).cNum() == c;
    }

    boolean at(CNum c, int cType) {
      return at(c) && objs.get(i).cType() == cType;
    }

    int offset() {
      return i < objs.size() ? offs[i] : -1;
    }

    CopsObject next() {
      return objs.get(i++);
    }

    /** The next object, which must be of class {@code c} (error 7 if it is not there). */
    <T extends CopsObject> T required(CNum c, Class<T> type, String what, int msgEnd)
        throws CopsCodecException {
      if (!at(c)) {
        throw CopsCodecException.at(
            MANDATORY_OBJECT_MISSING,
            0,
            i < objs.size() ? offset() : msgEnd,
            what,
            i < objs.size() ? "found " + objs.get(i).cNum().description() : "end of message",
            what + " (C-Num " + c.code() + ")");
      }
      CopsObject o = next();
      if (!type.isInstance(o)) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, offs[i - 1], what, "C-Type " + o.cType(), what);
      }
      return type.cast(o);
    }

    <T extends CopsObject> T optional(CNum c, Class<T> type) {
      if (at(c) && type.isInstance(objs.get(i))) {
        return type.cast(next());
      }
      return null;
    }

    /** The optional Integrity object, then the end of the message. */
    IntegrityObject integrityThenEnd(String expectedHere, boolean tlsAllowed)
        throws CopsCodecException {
      IntegrityObject integrity = null;
      if (at(CNum.INTEGRITY)) {
        integrityOffset = offset();
        integrity = (IntegrityObject) next();
        if (integrity instanceof IntegrityTls && !tlsAllowed) {
          throw CopsCodecException.at(
              BAD_MESSAGE_FORMAT,
              0,
              integrityOffset,
              "Integrity-TLS",
              "in this operation",
              "only in OPN and CAT (RFC 4261 section 4.1)");
        }
        expectedHere = "nothing after Integrity, which must be the last object";
      }
      if (i < objs.size()) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            offset(),
            "object",
            objs.get(i).cNum().description() + " (C-Num " + objs.get(i).cNum().code() + ")",
            expectedHere);
      }
      return integrity;
    }
  }

  private static CopsMessage grammar(OpCode op, int clientType, boolean solicited, Cursor c)
      throws CopsCodecException {
    int end = -1; // offsets for "missing at end" are reported as the end of the message
    switch (op) {
      case REQ:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          Context ctx = c.required(CNum.CONTEXT, Context.class, "Context", end);
          Interface in = c.optional(CNum.IN_INTERFACE, Interface.class);
          Interface out = c.optional(CNum.OUT_INTERFACE, Interface.class);
          // The usual REQ has one ClientSI and no LPDP decision: build those lists without
          // copies (List.of of one element is what the record keeps as it is).
          List<ClientSI> si = List.of();
          if (c.at(CNum.CLIENT_SI)) {
            ClientSI first = (ClientSI) c.next();
            if (!c.at(CNum.CLIENT_SI)) {
              si = List.of(first);
            } else {
              si = new ArrayList<>();
              si.add(first);
              while (c.at(CNum.CLIENT_SI)) {
                si.add((ClientSI) c.next());
              }
            }
          }
          List<DecisionSet> lpdp = List.of();
          if (c.at(CNum.CONTEXT) || c.at(CNum.LPDP_DECISION)) {
            lpdp = new ArrayList<>();
            while (c.at(CNum.CONTEXT) || c.at(CNum.LPDP_DECISION)) {
              lpdp.add(decisionSet(c, true));
            }
          }
          IntegrityObject i =
              c.integrityThenEnd(
                  "IN-Int, OUT-Int, ClientSI, LPDP decisions or Integrity, in that order", false);
          return new CopsMessage.Request(clientType, solicited, h, ctx, in, out, si, lpdp, i);
        }
      case DEC:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          ErrorObject err = c.optional(CNum.ERROR, ErrorObject.class);
          List<DecisionSet> ds = List.of();
          if (err == null) {
            if (c.at(CNum.CONTEXT) || c.at(CNum.DECISION)) {
              DecisionSet first = decisionSet(c, false);
              if (!c.at(CNum.CONTEXT) && !c.at(CNum.DECISION)) {
                ds = List.of(first);
              } else {
                ds = new ArrayList<>();
                ds.add(first);
                while (c.at(CNum.CONTEXT) || c.at(CNum.DECISION)) {
                  ds.add(decisionSet(c, false));
                }
              }
            }
            if (ds.isEmpty()) {
              c.required(CNum.CONTEXT, Context.class, "Decision (Context and Flags) or Error", end);
            }
          }
          IntegrityObject i =
              c.integrityThenEnd(
                  err == null ? "more decisions or Integrity" : "Integrity after an Error", false);
          return new CopsMessage.Decision(clientType, solicited, h, ds, err, i);
        }
      case RPT:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          ReportTypeObject rt =
              c.required(CNum.REPORT_TYPE, ReportTypeObject.class, "Report-Type", end);
          ClientSI si = c.optional(CNum.CLIENT_SI, ClientSI.class);
          IntegrityObject i = c.integrityThenEnd("one ClientSI or Integrity", false);
          return new CopsMessage.Report(clientType, solicited, h, rt, si, i);
        }
      case DRQ:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          Reason r = c.required(CNum.REASON, Reason.class, "Reason", end);
          IntegrityObject i = c.integrityThenEnd("Integrity", false);
          return new CopsMessage.DeleteRequest(clientType, solicited, h, r, i);
        }
      case SSQ:
        {
          Handle h = c.optional(CNum.HANDLE, Handle.class);
          IntegrityObject i = c.integrityThenEnd("a Client Handle or Integrity", false);
          return new CopsMessage.SyncStateRequest(clientType, solicited, h, i);
        }
      case OPN:
        {
          PepId p = c.required(CNum.PEP_ID, PepId.class, "PEPID", end);
          ClientSI si = c.optional(CNum.CLIENT_SI, ClientSI.class);
          PdpAddress last = c.optional(CNum.LAST_PDP_ADDRESS, PdpAddress.class);
          IntegrityObject i = c.integrityThenEnd("ClientSI, LastPDPAddr or Integrity", true);
          return new CopsMessage.ClientOpen(clientType, solicited, p, si, last, i);
        }
      case CAT:
        {
          KaTimer ka = c.required(CNum.KA_TIMER, KaTimer.class, "KA Timer", end);
          AcctTimer acct = c.optional(CNum.ACCT_TIMER, AcctTimer.class);
          IntegrityObject i = c.integrityThenEnd("ACCT Timer or Integrity", true);
          return new CopsMessage.ClientAccept(clientType, solicited, ka, acct, i);
        }
      case CC:
        {
          ErrorObject err = c.required(CNum.ERROR, ErrorObject.class, "Error", end);
          PdpAddress redirect = c.optional(CNum.PDP_REDIRECT_ADDRESS, PdpAddress.class);
          IntegrityObject i = c.integrityThenEnd("PDPRedirAddr or Integrity", false);
          return new CopsMessage.ClientClose(clientType, solicited, err, redirect, i);
        }
      case KA:
        {
          if (clientType != 0) {
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, 2, "client-type", clientType, "0 in a Keep-Alive");
          }
          IntegrityObject i = c.integrityThenEnd("Integrity only", false);
          return new CopsMessage.KeepAlive(solicited, i);
        }
      case SSC:
        {
          Handle h = c.optional(CNum.HANDLE, Handle.class);
          IntegrityObject i = c.integrityThenEnd("a Client Handle or Integrity", false);
          return new CopsMessage.SyncStateComplete(clientType, solicited, h, i);
        }
      default:
        throw new AssertionError(op);
    }
  }

  /** One decision: [Context] Flags [data...]; the data C-Types in any order, each at most once. */
  private static DecisionSet decisionSet(Cursor c, boolean lpdp) throws CopsCodecException {
    CNum cls = lpdp ? CNum.LPDP_DECISION : CNum.DECISION;
    Context ctx = c.optional(CNum.CONTEXT, Context.class);
    if (ctx == null && !lpdp) {
      c.required(CNum.CONTEXT, Context.class, "Context of a decision", -1);
    }
    if (!c.at(cls, 1)) {
      c.required(
          cls.code() == 6 ? CNum.DECISION : CNum.LPDP_DECISION,
          DecisionFlags.class,
          (lpdp ? "LPDP " : "") + "Decision Flags after a Context",
          -1);
      // present but not C-Type 1: data before flags
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT,
          0,
          c.offset(),
          (lpdp ? "LPDP " : "") + "Decision C-Type",
          c.objs.get(c.i).cType(),
          "1 (Flags) first in each decision");
    }
    DecisionFlags flags = (DecisionFlags) c.next();
    DecisionData[] data = new DecisionData[4];
    while (c.at(cls) && c.objs.get(c.i).cType() != 1) {
      int off = c.offset();
      DecisionData d = (DecisionData) c.next();
      int slot = d.kind().ordinal();
      if (data[slot] != null) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            off,
            "Decision " + d.kind().description(),
            "a second one",
            "at most one per decision");
      }
      data[slot] = d;
    }
    return new DecisionSet(ctx, flags, data[0], data[1], data[2], data[3]);
  }
}
