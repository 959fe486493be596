package dev.portcullis.active.router;

import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.crypto.MacKey;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Rebuilds a verified clear-payload packet with a new payload, as a service asked: the same header
 * (payload length updated), the new payload, a new tag under the session's MAC key — which the
 * router holds, being on the flow's path.
 */
final class Resealer {
  private Resealer() {}

  static byte[] reseal(PacketView p, byte[] payload, MacKey key) {
    int header = ActivePacket.headerLength(p.ipv6());
    int tagLength = p.mac().tagLength;
    byte[] out = new byte[header + payload.length + tagLength];
    p.buffer().get(p.start(), out, 0, header);
    ByteBuffer.wrap(out).putInt(ActivePacket.OFF_PAYLOAD_LENGTH, payload.length);
    System.arraycopy(payload, 0, out, header, payload.length);
    byte[] full = new byte[key.macLength()];
    key.compute(out, 0, header + payload.length, full, 0);
    System.arraycopy(full, 0, out, header + payload.length, tagLength);
    Arrays.fill(full, (byte) 0);
    return out;
  }
}
