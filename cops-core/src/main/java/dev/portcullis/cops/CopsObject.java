package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The COPS objects of RFC 2748 section 2.2 (and RFC 4261's Integrity-TLS), as validated values.
 *
 * <p>Every object is a C-Num, a C-Type and contents; on the wire a 4-byte header (length, C-Num,
 * C-Type) precedes the contents and zero padding follows them to a 32-bit boundary. The length
 * counts header and contents, not the padding; {@link PepId} is the one object whose contents
 * include their own padding (RFC 2748 section 2.2.11).
 *
 * <p>Code points (error codes, reason codes, command codes) are kept as integers so that values a
 * later RFC or a client type defines survive a decode and re-encode; the enums name the ones RFC
 * 2748 defines.
 */
public sealed interface CopsObject {

  /** Header length of every object. */
  int HEADER_LENGTH = 4;

  /** Largest object length the 16-bit length field can carry. */
  int MAX_OBJECT_LENGTH = 0xFFFF;

  CNum cNum();

  int cType();

  /** Length of the contents in bytes, without header or padding. */
  int contentLength();

  /** Writes the contents (no header, no padding). */
  void writeContent(ByteBuf out);

  /** Object length as the header states it: header plus contents. */
  default int objectLength() {
    return HEADER_LENGTH + contentLength();
  }

  /** Bytes this object takes on the wire, padding included. */
  default int paddedLength() {
    return (objectLength() + 3) & ~3;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static int u16(String field, int v) {
    if (v < 0 || v > 0xFFFF) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 65535)");
    }
    return v;
  }

  private static long u32(String field, long v) {
    if (v < 0 || v > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(field + ": " + v + " (expected: 0 to 4294967295)");
    }
    return v;
  }

  private static Bytes checkContent(String field, Bytes data, int min) {
    Objects.requireNonNull(data, field);
    if (data.length() < min || data.length() > MAX_OBJECT_LENGTH - HEADER_LENGTH) {
      throw new IllegalArgumentException(
          field
              + ": "
              + data.length()
              + " bytes (expected: "
              + min
              + " to "
              + (MAX_OBJECT_LENGTH - HEADER_LENGTH)
              + ")");
    }
    return data;
  }

  // ---- the objects -----------------------------------------------------------------------------

  /** Client Handle (C-Num 1, C-Type 1): an opaque value naming one request state. */
  record Handle(Bytes value) implements CopsObject {
    public Handle {
      checkContent("handle", value, 1);
    }

    public static Handle of(String ascii) {
      return new Handle(Bytes.of(ascii.getBytes(StandardCharsets.US_ASCII)));
    }

    @Override
    public CNum cNum() {
      return CNum.HANDLE;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return value.length();
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeBytes(value.array());
    }
  }

  /**
   * Context (C-Num 2, C-Type 1): the R-Type flags say what is asked (admission control, resource
   * allocation, outgoing message, configuration), the M-Type is client-specific.
   */
  record Context(int rType, int mType) implements CopsObject {
    /** R-Type: Incoming-Message / Admission Control request. */
    public static final int R_INCOMING = 0x01;

    /** R-Type: Resource-Allocation request. */
    public static final int R_RESOURCE_ALLOCATION = 0x02;

    /** R-Type: Outgoing-Message request. */
    public static final int R_OUTGOING = 0x04;

    /** R-Type: Configuration request. */
    public static final int R_CONFIGURATION = 0x08;

    public Context {
      u16("R-Type", rType);
      u16("M-Type", mType);
    }

    @Override
    public CNum cNum() {
      return CNum.CONTEXT;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(rType).writeShort(mType);
    }
  }

  /**
   * In-Interface (C-Num 3) or Out-Interface (C-Num 4): an address and an ifIndex; C-Type 1 for
   * IPv4, 2 for IPv6.
   *
   * @param ifIndex unsigned 32-bit interface index (MIB-II ifIndex when SNMP is used)
   */
  record Interface(boolean out, InetAddress address, long ifIndex) implements CopsObject {
    public Interface {
      Objects.requireNonNull(address, "address");
      u32("ifIndex", ifIndex);
    }

    @Override
    public CNum cNum() {
      return out ? CNum.OUT_INTERFACE : CNum.IN_INTERFACE;
    }

    @Override
    public int cType() {
      return address instanceof Inet6Address ? 2 : 1;
    }

    @Override
    public int contentLength() {
      return address.getAddress().length + 4;
    }

    @Override
    public void writeContent(ByteBuf buf) {
      buf.writeBytes(address.getAddress()).writeInt((int) ifIndex);
    }
  }

  /** Reason (C-Num 5, C-Type 1): why a request state was deleted. */
  record Reason(int code, int subCode) implements CopsObject {
    public Reason {
      u16("Reason-Code", code);
      u16("Reason Sub-code", subCode);
    }

    public Reason(ReasonCode code) {
      this(code.code(), 0);
    }

    /** The RFC 2748 reason, or null for a code it does not define. */
    public ReasonCode reasonCode() {
      return ReasonCode.isDefined(code) ? ReasonCode.valueOf(code) : null;
    }

    @Override
    public CNum cNum() {
      return CNum.REASON;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(code).writeShort(subCode);
    }
  }

  /**
   * Decision Flags (C-Num 6, or 7 for an LPDP decision; C-Type 1): the command (NULL, Install,
   * Remove) and flags (Trigger Error).
   */
  record DecisionFlags(boolean lpdp, int command, int flags) implements CopsObject {
    public DecisionFlags {
      u16("Command-Code", command);
      u16("Flags", flags);
    }

    public DecisionFlags(boolean lpdp, DecisionCommand command) {
      this(lpdp, command.code(), 0);
    }

    /** The RFC 2748 command, or null for a code it does not define. */
    public DecisionCommand decisionCommand() {
      return DecisionCommand.isDefined(command) ? DecisionCommand.valueOf(command) : null;
    }

    @Override
    public CNum cNum() {
      return lpdp ? CNum.LPDP_DECISION : CNum.DECISION;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(command).writeShort(flags);
    }
  }

  /** The data-carrying Decision C-Types of RFC 2748 section 2.2.6. */
  enum DecisionDataKind {
    STATELESS(2, "Stateless Data"),
    REPLACEMENT(3, "Replacement Data"),
    CLIENT_SPECIFIC(4, "Client Specific Decision Data"),
    NAMED(5, "Named Decision Data");

    private final int cType;
    private final String description;

    DecisionDataKind(int cType, String description) {
      this.cType = cType;
      this.description = description;
    }

    public int cType() {
      return cType;
    }

    public String description() {
      return description;
    }

    /** The kind for C-Type 2 to 5, else null. */
    public static DecisionDataKind fromCType(int cType) {
      return cType >= 2 && cType <= 5 ? values()[cType - 2] : null;
    }
  }

  /**
   * Decision data (C-Num 6, or 7 for an LPDP decision; C-Types 2 to 5): stateless, replacement,
   * client-specific or named (COPS-PR) data. The contents are client-type specific; for COPS-PR,
   * {@link dev.portcullis.cops.pr.PrObjects} reads and writes them structurally.
   */
  record DecisionData(boolean lpdp, DecisionDataKind kind, Bytes data) implements CopsObject {
    public DecisionData {
      Objects.requireNonNull(kind, "kind");
      checkContent("decision data", data, 0);
    }

    @Override
    public CNum cNum() {
      return lpdp ? CNum.LPDP_DECISION : CNum.DECISION;
    }

    @Override
    public int cType() {
      return kind.cType();
    }

    @Override
    public int contentLength() {
      return data.length();
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeBytes(data.array());
    }
  }

  /** Error (C-Num 8, C-Type 1). */
  record ErrorObject(int code, int subCode) implements CopsObject {
    public ErrorObject {
      u16("Error-Code", code);
      u16("Error Sub-code", subCode);
    }

    public ErrorObject(ErrorCode code, int subCode) {
      this(code.code(), subCode);
    }

    public ErrorObject(ErrorCode code) {
      this(code.code(), 0);
    }

    /** The RFC 2748 error, or null for a code it does not define. */
    public ErrorCode errorCode() {
      return ErrorCode.isDefined(code) ? ErrorCode.valueOf(code) : null;
    }

    @Override
    public CNum cNum() {
      return CNum.ERROR;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(code).writeShort(subCode);
    }
  }

  /** Client Specific Information (C-Num 9): C-Type 1 signaled, C-Type 2 named (COPS-PR). */
  record ClientSI(boolean named, Bytes data) implements CopsObject {
    public ClientSI {
      checkContent("ClientSI", data, 0);
    }

    @Override
    public CNum cNum() {
      return CNum.CLIENT_SI;
    }

    @Override
    public int cType() {
      return named ? 2 : 1;
    }

    @Override
    public int contentLength() {
      return data.length();
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeBytes(data.array());
    }
  }

  /** Keep-Alive Timer (C-Num 10, C-Type 1): seconds; 0 means no keep-alive. */
  record KaTimer(int seconds) implements CopsObject {
    public KaTimer {
      u16("KA Timer Value", seconds);
    }

    @Override
    public CNum cNum() {
      return CNum.KA_TIMER;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(0).writeShort(seconds);
    }
  }

  /**
   * PEP Identification (C-Num 11, C-Type 1): an ASCII string, NUL terminated and zero padded to a
   * 32-bit boundary inside the object, so the object length is a multiple of 4.
   */
  record PepId(String id) implements CopsObject {
    public PepId {
      Objects.requireNonNull(id, "id");
      if (id.isEmpty()) {
        throw new IllegalArgumentException("PEPID: empty (expected: at least one character)");
      }
      for (int i = 0; i < id.length(); i++) {
        char c = id.charAt(i);
        if (c == 0 || c > 0x7F) {
          throw new IllegalArgumentException(
              "PEPID: character " + (int) c + " at index " + i + " (expected: ASCII, no NUL)");
        }
      }
      if (((id.length() + 1 + 3) & ~3) > MAX_OBJECT_LENGTH - HEADER_LENGTH) {
        throw new IllegalArgumentException("PEPID: " + id.length() + " characters (too long)");
      }
    }

    @Override
    public CNum cNum() {
      return CNum.PEP_ID;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return (id.length() + 1 + 3) & ~3; // string, NUL, zero padding
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeCharSequence(id, StandardCharsets.US_ASCII);
      out.writeZero(contentLength() - id.length());
    }
  }

  /** Report-Type (C-Num 12, C-Type 1). */
  record ReportTypeObject(int type) implements CopsObject {
    public ReportTypeObject {
      u16("Report-Type", type);
    }

    public ReportTypeObject(ReportType type) {
      this(type.code());
    }

    /** The RFC 2748 report type, or null for a code it does not define. */
    public ReportType reportType() {
      return ReportType.isDefined(type) ? ReportType.valueOf(type) : null;
    }

    @Override
    public CNum cNum() {
      return CNum.REPORT_TYPE;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(type).writeShort(0);
    }
  }

  /**
   * PDP Redirect Address (C-Num 13) or Last PDP Address (C-Num 14): an address and a TCP port;
   * C-Type 1 for IPv4, 2 for IPv6.
   */
  record PdpAddress(boolean last, InetAddress address, int port) implements CopsObject {
    public PdpAddress {
      Objects.requireNonNull(address, "address");
      u16("TCP Port", port);
    }

    @Override
    public CNum cNum() {
      return last ? CNum.LAST_PDP_ADDRESS : CNum.PDP_REDIRECT_ADDRESS;
    }

    @Override
    public int cType() {
      return address instanceof Inet4Address ? 1 : 2;
    }

    @Override
    public int contentLength() {
      return address.getAddress().length + 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeBytes(address.getAddress()).writeShort(0).writeShort(port);
    }
  }

  /** Accounting Timer (C-Num 15, C-Type 1): seconds between accounting reports; 0 means none. */
  record AcctTimer(int seconds) implements CopsObject {
    public AcctTimer {
      u16("ACCT Timer Value", seconds);
    }

    @Override
    public CNum cNum() {
      return CNum.ACCT_TIMER;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeShort(0).writeShort(seconds);
    }
  }

  /** The Integrity object in either of its forms; always the last object of a message. */
  sealed interface IntegrityObject extends CopsObject {}

  /**
   * Message Integrity, HMAC digest (C-Num 16, C-Type 1): key id, sequence number and the keyed
   * digest over the message up to and including the sequence number.
   */
  record Integrity(long keyId, long sequence, Bytes digest) implements IntegrityObject {
    public Integrity {
      u32("Key ID", keyId);
      u32("Sequence Number", sequence);
      checkContent("Keyed Message Digest", digest, 0);
    }

    @Override
    public CNum cNum() {
      return CNum.INTEGRITY;
    }

    @Override
    public int cType() {
      return 1;
    }

    @Override
    public int contentLength() {
      return 8 + digest.length();
    }

    @Override
    public void writeContent(ByteBuf out) {
      out.writeInt((int) keyId).writeInt((int) sequence).writeBytes(digest.array());
    }
  }

  /**
   * Integrity-TLS (C-Num 16, C-Type 2; RFC 4261 section 4.1): carried in client-type 0 OPN and CAT
   * to negotiate TLS.
   */
  record IntegrityTls(int flags) implements IntegrityObject {
    /** RFC 4261: the sender wishes to start a TLS handshake. */
    public static final int FLAG_START_TLS = 0x01;

    public IntegrityTls {
      u16("Integrity-TLS Flags", flags);
    }

    public boolean startTls() {
      return (flags & FLAG_START_TLS) != 0;
    }

    @Override
    public CNum cNum() {
      return CNum.INTEGRITY;
    }

    @Override
    public int cType() {
      return 2;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuf out) {
      // RFC 4261 section 4.1: 16 reserved bits, then the 16-bit Flags (docs/cops-wire.md).
      out.writeShort(0).writeShort(flags);
    }
  }
}
