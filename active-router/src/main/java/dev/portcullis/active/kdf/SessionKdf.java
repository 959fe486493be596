package dev.portcullis.active.kdf;

import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The session keys of a flow: K = HKDF-SHA-256(salt = "portcullis-rosa-v1", IKM = Kci, info), with
 * info an unambiguous, length-prefixed encoding of the label, the purpose and the flow's fields
 * ({@code docs/active-packets.md}, "Key derivation"). The Authorization Server and every Active
 * Router compute the same bytes from the same fields; change one field and every key changes.
 */
public final class SessionKdf {
  /** HKDF's salt, and the first field of every info: names this scheme and its version. */
  public static final String LABEL = "portcullis-rosa-v1";

  /** Purpose of the payload encryption key (AES-128-GCM). */
  public static final String ENCRYPTION = "enc-aes128-gcm";

  /** Bytes of the payload encryption key. */
  public static final int ENCRYPTION_KEY_LENGTH = 16;

  private static final byte[] SALT = LABEL.getBytes(StandardCharsets.US_ASCII);

  private final Hkdf hkdf;

  public SessionKdf(CryptoRegistry registry) {
    this.hkdf = new Hkdf(registry, Algorithm.HMAC_SHA256);
  }

  /** HKDF-Extract of a code secret: do it once per (Ci, epoch) and keep the result. */
  public MacKey prepare(byte[] kci) {
    return hkdf.extract(SALT, kci);
  }

  /** The MAC key of a flow for a packet MAC algorithm ({@link MacAlgorithm#keyLength} bytes). */
  public byte[] macKey(MacKey prk, Flow flow, MacAlgorithm mac) {
    return derive(prk, flow, "mac-" + mac.label, mac.keyLength);
  }

  /** The payload encryption key of a flow (AES-128-GCM). */
  public byte[] encryptionKey(MacKey prk, Flow flow) {
    return derive(prk, flow, ENCRYPTION, ENCRYPTION_KEY_LENGTH);
  }

  private byte[] derive(MacKey prk, Flow flow, String purpose, int length) {
    byte[] info = info(flow, purpose);
    byte[] out = new byte[length];
    hkdf.expand(prk, info, 0, info.length, out, 0, length);
    return out;
  }

  /**
   * The info bytes: each field as a 2-byte big-endian length then the field; the fields are the
   * label, the purpose (ASCII), U, SST, SET (8 bytes each), IPs, IPd (4 or 16 bytes each) and Ci (4
   * bytes).
   */
  public static byte[] info(Flow flow, String purpose) {
    byte[] label = SALT;
    byte[] p = purpose.getBytes(StandardCharsets.US_ASCII);
    byte[] src = flow.source().getAddress();
    byte[] dst = flow.destination().getAddress();
    int n = 8 * 2 + label.length + p.length + 8 + 8 + 8 + src.length + dst.length + 4;
    ByteBuffer b = ByteBuffer.allocate(n);
    field(b, label);
    field(b, p);
    b.putShort((short) 8).putLong(flow.user());
    b.putShort((short) 8).putLong(flow.sst());
    b.putShort((short) 8).putLong(flow.set());
    field(b, src);
    field(b, dst);
    b.putShort((short) 4).putInt(flow.code());
    return b.array();
  }

  private static void field(ByteBuffer b, byte[] f) {
    b.putShort((short) f.length).put(f);
  }
}
