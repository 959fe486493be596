package dev.portcullis.active.packet;

import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.Destroyable;

/**
 * Writes the packets of one session: header, payload (encrypted under the session's payload key if
 * it has one, nonce from the sequence number), tag. Sequence numbers start at 1 and never repeat
 * under one sealer, so neither does a GCM nonce. Thread-safe.
 */
public final class PacketSealer implements Destroyable {
  private final Flow flow;
  private final int epoch;
  private final MacAlgorithm mac;
  private final MacKey macKey;
  private final CipherKey encryption;
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param encryptionKey the payload key (16 bytes), or null to send payloads in the clear
   */
  public PacketSealer(
      CryptoRegistry registry,
      Flow flow,
      int epoch,
      MacAlgorithm mac,
      byte[] macKey,
      byte[] encryptionKey) {
    this.flow = Objects.requireNonNull(flow, "flow");
    this.epoch = epoch;
    this.mac = Objects.requireNonNull(mac, "mac");
    if (macKey.length != mac.keyLength) {
      throw new IllegalArgumentException(
          "MAC key: "
              + macKey.length
              + " bytes (expected "
              + mac.keyLength
              + " for "
              + mac.label
              + ")");
    }
    this.macKey = registry.macKey(mac.algorithm, macKey);
    this.encryption =
        encryptionKey == null ? null : registry.cipherKey(Algorithm.AES_GCM, encryptionKey);
  }

  public Flow flow() {
    return flow;
  }

  public boolean encrypts() {
    return encryption != null;
  }

  /** The sequence number the next {@link #seal(byte[])} uses. */
  public long nextSequence() {
    return sequence.get() + 1;
  }

  /** The next packet carrying {@code payload}. */
  public byte[] seal(byte[] payload) {
    return seal(sequence.incrementAndGet(), payload);
  }

  /**
   * The packet with an explicit sequence number (tools and tests: replays and reordering). A
   * sequence number must never be sealed twice with different payloads under a payload key.
   */
  public byte[] seal(long seq, byte[] payload) {
    if (seq == 0) {
      throw new IllegalArgumentException("sequence number 0 (numbering starts at 1)");
    }
    boolean v6 = flow.ipv6();
    int header = ActivePacket.headerLength(v6);
    int body = payload.length + (encryption != null ? ActivePacket.GCM_TAG : 0);
    int total = header + body + mac.tagLength;
    if (total > ActivePacket.MAX_DATAGRAM) {
      throw new IllegalArgumentException(
          "payload: "
              + payload.length
              + " bytes makes a "
              + total
              + "-byte packet (at most "
              + ActivePacket.MAX_DATAGRAM
              + ")");
    }
    byte[] out = new byte[total];
    ByteBuffer b = ByteBuffer.wrap(out);
    b.put((byte) ActivePacket.VERSION)
        .put(
            (byte)
                ((encryption != null ? ActivePacket.FLAG_ENCRYPTED : 0)
                    | (v6 ? ActivePacket.FLAG_IPV6 : 0)))
        .put((byte) mac.id)
        .put((byte) 0)
        .putInt(flow.code())
        .putInt(epoch)
        .putInt(body)
        .putLong(flow.user())
        .putLong(flow.sst())
        .putLong(flow.set())
        .putLong(seq)
        .put(flow.source().getAddress())
        .put(flow.destination().getAddress());
    if (encryption == null) {
      b.put(payload);
    } else {
      byte[] nonce = new byte[ActivePacket.GCM_NONCE];
      ActivePacket.nonce(seq, nonce);
      byte[] aad = Arrays.copyOf(out, header);
      try {
        encryption.encrypt(nonce, aad, payload, 0, payload.length, out, header);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM encryption failed", e);
      }
    }
    reMac(out);
    return out;
  }

  /** Writes the tag of a packet whose other bytes are final (a router after a service edit). */
  void reMac(byte[] packet) {
    int covered = packet.length - mac.tagLength;
    byte[] full = new byte[mac.algorithm.outputLength()];
    macKey.compute(packet, 0, covered, full, 0);
    System.arraycopy(full, 0, packet, covered, mac.tagLength);
    Arrays.fill(full, (byte) 0);
  }

  @Override
  public void destroy() {
    macKey.destroy();
    if (encryption != null) {
      encryption.destroy();
    }
  }

  @Override
  public boolean isDestroyed() {
    return macKey.isDestroyed();
  }
}
