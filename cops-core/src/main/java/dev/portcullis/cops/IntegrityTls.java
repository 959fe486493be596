package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/**
 * Integrity-TLS (C-Num 16, C-Type 2; RFC 4261 section 4.1): carried in client-type 0 OPN and CAT to
 * negotiate TLS.
 */
public record IntegrityTls(int flags) implements IntegrityObject {
  /** RFC 4261: the sender wishes to start a TLS handshake. */
  public static final int FLAG_START_TLS = 0x01;

  public IntegrityTls {
    u16("Integrity-TLS Flags", flags);
  }

  public boolean startTls() {
    return (flags & FLAG_START_TLS) != 0;
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.INTEGRITY_TLS;
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
