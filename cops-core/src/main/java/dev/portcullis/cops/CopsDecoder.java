package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames COPS messages by the common header's length field and decodes each into a {@link
 * CopsMessage}. The header is checked as soon as its 8 bytes arrive, so a wrong version or a length
 * above the maximum is refused before the body is buffered; a length never drives an allocation
 * beyond {@code maxMessageSize}.
 *
 * <p>Malformed input produces one {@link CopsDecodeFailure} carrying the RFC error to report; from
 * then on the decoder discards every byte until the channel closes, as a connection whose framing
 * is in doubt cannot be resynchronised. Nothing else is ever thrown or emitted.
 */
public final class CopsDecoder extends ByteToMessageDecoder {
  private static final Logger log = LoggerFactory.getLogger(CopsDecoder.class);

  private final int maxMessageSize;
  private final IntegrityVerifier verifier;
  private boolean failed;

  /** A decoder with the default maximum message size and no Integrity checking. */
  public CopsDecoder() {
    this(CopsCodec.DEFAULT_MAX_MESSAGE_SIZE, null);
  }

  /**
   * @param maxMessageSize largest message accepted, 8 to {@link CopsCodec#MAX_MESSAGE_SIZE_LIMIT}
   * @param verifier checks each message's Integrity, or null for none
   */
  public CopsDecoder(int maxMessageSize, IntegrityVerifier verifier) {
    if (maxMessageSize < CopsMessage.HEADER_LENGTH
        || maxMessageSize > CopsCodec.MAX_MESSAGE_SIZE_LIMIT) {
      throw new IllegalArgumentException(
          "maxMessageSize: "
              + maxMessageSize
              + " (expected: 8 to "
              + CopsCodec.MAX_MESSAGE_SIZE_LIMIT
              + ")");
    }
    this.maxMessageSize = maxMessageSize;
    this.verifier = verifier;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (in.readableBytes() >= CopsMessage.HEADER_LENGTH) {
      int start = in.readerIndex();
      try {
        int len = CopsCodec.checkHeader(in, maxMessageSize);
        if (in.readableBytes() < len) {
          return; // wait for the rest; len <= maxMessageSize bounds what is buffered
        }
        ByteBuf frame = in.slice(start, len);
        CopsCodec.Decoded d = CopsCodec.decode(frame, maxMessageSize);
        if (verifier != null) {
          try {
            verifier.verify(d.message(), frame, d.integrityOffset());
          } catch (CopsCodecException e) {
            CopsMessage m = d.message();
            throw e.in(m.clientType(), m.opCode(), handleOf(m));
          }
        }
        in.readerIndex(start + len);
        out.add(d.message());
      } catch (CopsCodecException e) {
        fail(in, out, e);
        return;
      } catch (RuntimeException e) {
        // A fault of ours, not of the input; still the peer gets an answer and nothing escapes.
        log.warn("COPS decoder fault at offset 0 of a message: {}", e.toString());
        log.debug("COPS decoder fault", e);
        fail(
            in,
            out,
            CopsCodecException.at(
                ErrorCode.BAD_MESSAGE_FORMAT, 0, 0, "message", "undecodable", "a COPS message"));
        return;
      }
    }
  }

  private void fail(ByteBuf in, List<Object> out, CopsCodecException e) {
    failed = true;
    in.skipBytes(in.readableBytes());
    out.add(new CopsDecodeFailure(e));
  }

  private static Handle handleOf(CopsMessage m) {
    for (CopsObject o : m.objects()) {
      if (o instanceof Handle) {
        return (Handle) o;
      }
    }
    return null;
  }

  /** True once malformed input was seen; everything after it is discarded. */
  public boolean failed() {
    return failed;
  }
}
