package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Encodes {@link CopsMessage}s as they are (Integrity included if the message carries one).
 * Stateless; use {@link #INSTANCE}. Signing encoders are per connection: see {@code
 * dev.portcullis.cops.integrity.SigningCopsEncoder}.
 */
@Sharable
public final class CopsEncoder extends MessageToByteEncoder<CopsMessage> {
  public static final CopsEncoder INSTANCE = new CopsEncoder();

  private CopsEncoder() {
    super(CopsMessage.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, CopsMessage msg, ByteBuf out) {
    CopsCodec.encode(msg, out);
  }
}
