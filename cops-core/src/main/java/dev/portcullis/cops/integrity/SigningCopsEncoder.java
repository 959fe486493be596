package dev.portcullis.cops.integrity;

import dev.portcullis.cops.CopsMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Encodes and signs every outbound message with one connection's {@link IntegritySession}. */
public final class SigningCopsEncoder extends MessageToByteEncoder<CopsMessage> {
  private final IntegritySession session;

  public SigningCopsEncoder(IntegritySession session) {
    super(CopsMessage.class);
    this.session = session;
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, CopsMessage msg, ByteBuf out) {
    session.encodeSigned(msg, out);
  }
}
