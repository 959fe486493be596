package dev.portcullis.cops;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Encodes COPS messages to bytes and decodes exactly one message from a frame, enforcing the common
 * header rules here, every object's layout in {@link ObjectReader} and the per-operation grammar of
 * RFC 2748 section 3 in {@link MessageGrammar}. Stateless and thread-safe; the Netty handlers are
 * {@link CopsDecoder} and {@link CopsEncoder}.
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

  /**
   * Writes {@code m} to {@code out}: common header, then every object padded to 32 bits. One pass:
   * each length field is written as 0 and set once what it counts has been written (a profile of
   * the PDP showed the separate pass computing lengths through every object as a sixth of encoding
   * a DEC).
   */
  public static void encode(CopsMessage m, ByteBuf out) {
    int start = writeHeader(m, out);
    for (CopsObject o : m.objects()) {
      writeObject(o, out);
    }
    setLength(start, out);
  }

  /**
   * Writes {@code m}'s common header, its length 0 until {@link #setLength}, in one write; returns
   * where the message starts.
   */
  static int writeHeader(CopsMessage m, ByteBuf out) {
    int start = out.writerIndex();
    out.writeLong(
        (long) (CopsMessage.VERSION << 4 | (m.solicited() ? CopsMessage.FLAG_SOLICITED : 0)) << 56
            | (long) m.opCode().code() << 48
            | (long) m.clientType() << 32);
    return start;
  }

  /** Sets the length of the message that starts at {@code start} and ends at the writer index. */
  static void setLength(int start, ByteBuf out) {
    out.setInt(start + 4, out.writerIndex() - start);
  }

  /** The encoded bytes of {@code m}. */
  public static byte[] encode(CopsMessage m) {
    ByteBuf b = Unpooled.buffer(m.length());
    encode(m, b);
    byte[] a = new byte[b.readableBytes()];
    b.readBytes(a);
    return a;
  }

  /** Writes {@code o}: header, contents, zero padding to 32 bits. */
  static void writeObject(CopsObject o, ByteBuf out) {
    int start = out.writerIndex();
    out.writeShort(0); // the object length, set below
    out.writeByte(o.cNum().code());
    out.writeByte(o.cType());
    o.writeContent(out);
    int len = out.writerIndex() - start;
    if (len > CopsObject.MAX_OBJECT_LENGTH) {
      out.writerIndex(start);
      throw new IllegalArgumentException(
          o.objectType() + ": " + len + " bytes, more than an object's 16-bit length can state");
    }
    out.setShort(start, len);
    out.writeZero(-len & 3);
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
    ObjectReader.DecodedObjects objects = new ObjectReader.DecodedObjects();
    try {
      int off = CopsMessage.HEADER_LENGTH;
      while (off < len) {
        off = ObjectReader.readObject(frame, base, off, len, objects);
      }
      MessageGrammar.Cursor c = new MessageGrammar.Cursor(objects);
      CopsMessage m = MessageGrammar.grammar(op, clientType, solicited, c);
      return new Decoded(m, c.integrityOffset);
    } catch (CopsCodecException e) {
      throw e.in(clientType, op, objects.handle);
    }
  }

  /** Decodes a byte array holding exactly one message. */
  public static CopsMessage decode(byte[] message) throws CopsCodecException {
    return decode(Unpooled.wrappedBuffer(message), MAX_MESSAGE_SIZE_LIMIT).message();
  }
}
