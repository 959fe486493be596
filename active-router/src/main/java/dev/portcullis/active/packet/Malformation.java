package dev.portcullis.active.packet;

/** Why bytes are not a version-1 active packet, and the byte offset of the field at fault. */
public enum Malformation {
  TOO_SHORT(0, "shorter than the fixed header"),
  BAD_VERSION(ActivePacket.OFF_VERSION, "unknown version"),
  UNKNOWN_FLAGS(ActivePacket.OFF_FLAGS, "flags outside those version 1 defines"),
  UNKNOWN_MAC(ActivePacket.OFF_MAC, "unknown MAC algorithm"),
  RESERVED_NOT_ZERO(ActivePacket.OFF_RESERVED, "reserved byte not zero"),
  LENGTH_MISMATCH(
      ActivePacket.OFF_PAYLOAD_LENGTH, "payload length disagrees with the datagram's length"),
  SEQUENCE_ZERO(ActivePacket.OFF_SEQUENCE, "sequence number 0 (numbering starts at 1)"),
  VALIDITY_INVERTED(ActivePacket.OFF_SET, "SET before SST"),
  ENCRYPTED_TOO_SHORT(
      ActivePacket.OFF_PAYLOAD_LENGTH, "encrypted payload shorter than its 16-byte GCM tag");

  /** Offset of the field at fault. */
  public final int offset;

  /** What is wrong, for logs. */
  public final String description;

  Malformation(int offset, String description) {
    this.offset = offset;
    this.description = description;
  }

  @Override
  public String toString() {
    return name() + " at byte " + offset + ": " + description;
  }
}
