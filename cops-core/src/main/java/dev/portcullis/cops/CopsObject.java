package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;

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
public sealed interface CopsObject
    permits Handle,
        Context,
        Interface,
        CodeAndSubCode,
        DecisionFlags,
        DecisionData,
        ClientSI,
        TimerObject,
        PepId,
        ReportTypeObject,
        PdpAddress,
        IntegrityObject {

  /** Header length of every object. */
  int HEADER_LENGTH = 4;

  /** Largest object length the 16-bit length field can carry. */
  int MAX_OBJECT_LENGTH = 0xFFFF;

  /** What the header names: the C-Num and C-Type. */
  ObjectType objectType();

  default CNum cNum() {
    return objectType().cNum();
  }

  default int cType() {
    return objectType().cType();
  }

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
}
