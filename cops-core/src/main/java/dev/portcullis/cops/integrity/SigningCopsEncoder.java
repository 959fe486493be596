package dev.portcullis.cops.integrity;

import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.IntegrityTls;
import io.netty.buffer.ByteBuf;

/**
 * Encodes outbound messages for one connection, signing them with its {@link IntegritySession}
 * while {@link IntegritySession#signsOutgoing()} is on. A message carrying Integrity-TLS (RFC 4261)
 * is never signed: a message holds one Integrity object.
 */
public final class SigningCopsEncoder extends CopsEncoder {
  private final IntegritySession session;

  public SigningCopsEncoder(IntegritySession session) {
    this.session = session;
  }

  @Override
  protected void encode(CopsMessage msg, ByteBuf out) {
    if (session.signsOutgoing() && !(msg.integrity() instanceof IntegrityTls)) {
      session.encodeSigned(msg, out);
    } else {
      super.encode(msg, out);
    }
  }
}
