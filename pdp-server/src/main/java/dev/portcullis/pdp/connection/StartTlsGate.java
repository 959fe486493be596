package dev.portcullis.pdp.connection;

import dev.portcullis.cops.tls.CopsTls;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Stands first in a PEP connection's pipeline once the PDP has sent its Client-Accept with
 * Integrity-TLS: if the PEP's next bytes open a TLS handshake (a handshake record, content type
 * 22), it hands them, and the connection, to an {@code SslHandler}; anything else (a COPS message,
 * whose first byte is the version) is refused through {@link #NOT_TLS}, as RFC 4261 wants.
 */
public final class StartTlsGate extends ByteToMessageDecoder {
  /** Fired when the PEP sent something other than a TLS handshake. */
  public static final Object NOT_TLS = new Object();

  private static final int TLS_HANDSHAKE_RECORD = 22;

  private final CopsTls tls;

  public StartTlsGate(CopsTls tls) {
    this.tls = tls;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!in.isReadable()) {
      return;
    }
    if (in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE_RECORD) {
      // What was read so far goes on to the SslHandler once this handler is gone.
      ctx.pipeline().replace(this, "tls", tls.newServerHandler(ctx.alloc()));
    } else {
      in.skipBytes(in.readableBytes());
      ctx.fireUserEventTriggered(NOT_TLS);
    }
  }
}
