package dev.portcullis.cops;

import static dev.portcullis.cops.ErrorCode.BAD_HANDLE;
import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;
import static dev.portcullis.cops.ErrorCode.UNKNOWN_OBJECT;

import io.netty.buffer.ByteBuf;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads one COPS object at a time from a message (RFC 2748 section 2.2, RFC 4261 section 4):
 * header, length and padding, a C-Num/C-Type RFC 2748 or RFC 4261 defines, and each object's own
 * layout, into the validated {@link CopsObject} values. Every failure names the byte offset.
 */
final class ObjectReader {
  private ObjectReader() {}

  /** The objects of a message with their offsets, and the handle once one is read. */
  static final class DecodedObjects {
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

  static int readObject(ByteBuf b, int base, int off, int msgLen, DecodedObjects out)
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
}
