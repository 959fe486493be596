package dev.portcullis.cops.integrity;

import static dev.portcullis.cops.ErrorCode.AUTHENTICATION_FAILURE;
import static dev.portcullis.cops.ErrorCode.AUTHENTICATION_REQUIRED;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.CopsObject;
import dev.portcullis.cops.Integrity;
import dev.portcullis.cops.IntegrityObject;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.IntegrityVerifier;
import dev.portcullis.cops.ObjectType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Objects;

/**
 * The Integrity state of one COPS connection (RFC 2748 sections 2.2.16 and 4): the key ring, the
 * sequence number of the next message sent, and the one expected next.
 *
 * <p>Signing encodes a message once with the Integrity object in place and fills in the digest,
 * computed over the common header through the Integrity object's Key ID and Sequence Number.
 * Verification recomputes it over the bytes as received and compares in constant time, before the
 * sequence number is looked at, so a forged message cannot move the sequence on.
 *
 * <p>Sequence numbers run per direction, 32 bits, wrapping from 0xFFFFFFFF to 0. Portcullis reads
 * RFC 2748's "initiated during an initial Client-Open Client-Accept message exchange" as: the first
 * integrity-protected message in each direction, which must be an OPN (PEP to PDP) or a CAT (PDP to
 * PEP), carries its sender's starting number, chosen at random, and each later message in that
 * direction carries the previous number plus one.
 *
 * <p>Once the peer has sent one message with an Integrity object, every later one must carry one (a
 * message without is refused with error 15, Authentication Required). Outbound messages are signed
 * once {@link #signOutgoing} is on: a PEP turns it on before its first Client-Open, a PDP when a
 * PEP's Client-Open arrived signed.
 *
 * <p>Confined to the connection's event loop; not thread-safe.
 */
public final class IntegritySession implements IntegrityVerifier {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_MAC = 64;

  private final KeyRing ring;
  private final Clock clock;
  private final boolean required;
  private final byte[] scratch = new byte[MAX_MAC];
  private long nextSend;
  private boolean receiving;
  private long expectedReceive;
  private boolean signing;

  /**
   * @param required reject messages without an Integrity object (error 15)
   * @param initialSendSequence the sequence number of the first message this side sends
   */
  public IntegritySession(KeyRing ring, Clock clock, boolean required, long initialSendSequence) {
    this.ring = Objects.requireNonNull(ring, "ring");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.required = required;
    if (initialSendSequence < 0 || initialSendSequence > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(
          "initialSendSequence: " + initialSendSequence + " (expected: 0 to 4294967295)");
    }
    this.nextSend = initialSendSequence;
  }

  /** A session whose first sequence number is random, as it should be. */
  public IntegritySession(KeyRing ring, Clock clock, boolean required) {
    this(ring, clock, required, RANDOM.nextInt() & 0xFFFF_FFFFL);
  }

  /** Signs every later outbound message (except those carrying Integrity-TLS). */
  public void signOutgoing(boolean on) {
    signing = on;
  }

  /** True if outbound messages are signed. */
  public boolean signsOutgoing() {
    return signing;
  }

  /** True once the peer has sent a valid Integrity object (from then on it must always). */
  public boolean peerSigns() {
    return receiving;
  }

  /** The sequence number the next signed message will carry. */
  public long nextSendSequence() {
    return nextSend;
  }

  /** The sequence number expected on the next message received, or -1 before the first. */
  public long expectedReceiveSequence() {
    return receiving ? expectedReceive : -1;
  }

  /**
   * Encodes {@code m} with an Integrity object under the current signing key and the next sequence
   * number. Any Integrity object {@code m} carries is replaced.
   */
  public void encodeSigned(CopsMessage m, ByteBuf out) {
    IntegrityKey k = ring.signingKey(clock.instant());
    int digestLength = k.algorithm().digestLength();
    int start = out.writerIndex();
    CopsCodec.encode(m.integrity() == null ? m : m.withIntegrity(null), out);
    // The Integrity object, last (RFC 2748 section 2.2.12): its header, Key ID and Sequence
    // Number are written, the message length set to include it, and the digest computed over
    // everything before it and written in place: one pass, no placeholder object.
    int objectLength = CopsObject.HEADER_LENGTH + 8 + digestLength;
    out.writeShort(objectLength);
    out.writeByte(ObjectType.INTEGRITY_HMAC.cNum().code());
    out.writeByte(ObjectType.INTEGRITY_HMAC.cType());
    out.writeInt((int) k.keyId()).writeInt((int) nextSend);
    int digestAt = out.writerIndex();
    int padding = -objectLength & 3;
    out.setInt(start + 4, digestAt - start + digestLength + padding);
    ByteBuffer covered = out.nioBuffer(start, digestAt - start);
    k.mac().compute(covered, scratch, 0);
    out.writeBytes(scratch, 0, digestLength).writeZero(padding);
    nextSend = (nextSend + 1) & 0xFFFF_FFFFL;
  }

  /** As {@link #encodeSigned(CopsMessage, ByteBuf)}, into a new array. */
  public byte[] encodeSigned(CopsMessage m) {
    ByteBuf b = Unpooled.buffer();
    encodeSigned(m, b);
    byte[] a = new byte[b.readableBytes()];
    b.readBytes(a);
    return a;
  }

  @Override
  public void verify(CopsMessage m, ByteBuf frame, int integrityOffset) throws CopsCodecException {
    IntegrityObject io = m.integrity();
    if (io == null) {
      if (required || receiving) {
        throw CopsCodecException.at(
            AUTHENTICATION_REQUIRED,
            0,
            frame.readableBytes(),
            "Integrity",
            "missing",
            "an Integrity object as the last object of every message on this connection");
      }
      return;
    }
    if (io instanceof IntegrityTls) {
      return; // RFC 4261 negotiation; the session layer acts on it
    }
    Integrity in = (Integrity) io;
    IntegrityKey k = ring.verificationKey(in.keyId(), clock.instant());
    if (k == null) {
      throw CopsCodecException.at(
          AUTHENTICATION_FAILURE,
          0,
          integrityOffset + 4,
          "Key ID",
          in.keyId(),
          "a key shared with this peer and valid now");
    }
    int digestAt = integrityOffset + CopsObject.HEADER_LENGTH + 8;
    if (in.digest().length() != k.algorithm().digestLength()) {
      throw CopsCodecException.at(
          AUTHENTICATION_FAILURE,
          0,
          digestAt,
          "Keyed Message Digest",
          in.digest().length() + " bytes",
          k.algorithm().digestLength() + " for " + k.algorithm().displayName());
    }
    ByteBuffer covered = frame.nioBuffer(frame.readerIndex(), digestAt);
    if (!k.mac().verify(covered, in.digest().toArray(), 0, in.digest().length())) {
      throw CopsCodecException.at(
          AUTHENTICATION_FAILURE,
          0,
          digestAt,
          "Keyed Message Digest",
          "no match",
          k.algorithm().displayName()
              + " with key "
              + k.keyId()
              + " over bytes 0 to "
              + (digestAt - 1));
    }
    long seq = in.sequence();
    if (!receiving) {
      if (!(m instanceof ClientOpen || m instanceof ClientAccept)) {
        throw CopsCodecException.at(
            AUTHENTICATION_FAILURE,
            0,
            integrityOffset + 8,
            "Sequence Number",
            seq + " in a " + m.opCode() + " before any OPN/CAT",
            "the OPN/CAT exchange to start the sequence");
      }
      receiving = true;
    } else if (seq != expectedReceive) {
      throw CopsCodecException.at(
          AUTHENTICATION_FAILURE,
          0,
          integrityOffset + 8,
          "Sequence Number",
          seq,
          String.valueOf(expectedReceive));
    }
    expectedReceive = (seq + 1) & 0xFFFF_FFFFL;
  }
}
