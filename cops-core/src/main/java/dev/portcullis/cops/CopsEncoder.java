package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.EncoderException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes {@link CopsMessage}s as they are (Integrity included if the message carries one), one
 * connection's: the messages written between two flushes are encoded into one buffer and leave as
 * one write, so a batch of pipelined decisions costs one buffer, one outbound entry and one
 * contiguous copy into the socket, not one of each per message (Netty's {@code
 * MessageToByteEncoder} allocates and passes on a buffer per message). A batch is passed on without
 * waiting for the flush once it holds {@link #BATCH_LIMIT} bytes, and before anything other than a
 * COPS message is written, so the order of writes is kept. Signing encoders override {@link
 * #encode}: see {@code dev.portcullis.cops.integrity.SigningCopsEncoder}.
 *
 * <p>A write's promise completes when the batch holding it has been written (or fails with it); a
 * message that cannot be encoded fails its own promise alone and leaves nothing in the batch.
 */
public class CopsEncoder extends ChannelOutboundHandlerAdapter {
  /** A batch this large is written without waiting for the flush. */
  public static final int BATCH_LIMIT = 64 * 1024;

  /** A batch's first buffer: a read batch of decisions fits (32 DECs of ~110 bytes). */
  private static final int INITIAL_CAPACITY = 4 * 1024;

  private ByteBuf batch;
  private final List<ChannelPromise> promises = new ArrayList<>();

  private final DecisionTails decisions = new DecisionTails();

  /**
   * Writes {@code msg}'s bytes to {@code out}; a DEC's decisions from the bytes this connection
   * wrote for the same decision set before ({@link DecisionTails}).
   */
  protected void encode(CopsMessage msg, ByteBuf out) {
    if (msg instanceof Decision d) {
      decisions.encode(d, out);
    } else {
      CopsCodec.encode(msg, out);
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof CopsMessage m)) {
      passOn(ctx);
      ctx.write(msg, promise);
      return;
    }
    if (batch == null) {
      batch = ctx.alloc().ioBuffer(INITIAL_CAPACITY); // grows for a larger message
    }
    int mark = batch.writerIndex();
    try {
      encode(m, batch);
    } catch (RuntimeException e) {
      batch.writerIndex(mark);
      promise.setFailure(e instanceof EncoderException ? e : new EncoderException(e));
      return;
    }
    if (!promise.isVoid()) {
      promises.add(promise);
    }
    if (batch.readableBytes() >= BATCH_LIMIT) {
      passOn(ctx);
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    passOn(ctx);
    ctx.flush();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    passOn(ctx); // written, as the messages were before the close; the close fails what is unsent
    ctx.close(promise);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (batch != null) {
      batch.release();
      batch = null;
      EncoderException gone = new EncoderException("the COPS encoder was removed before a flush");
      for (ChannelPromise p : promises) {
        p.tryFailure(gone);
      }
      promises.clear();
    }
  }

  /** Writes the batch on, its promises completed with that write. */
  private void passOn(ChannelHandlerContext ctx) {
    ByteBuf b = batch;
    if (b == null) {
      return;
    }
    batch = null;
    if (promises.size() == 1) {
      ctx.write(b, promises.get(0));
    } else {
      ChannelPromise all = ctx.newPromise();
      if (!promises.isEmpty()) {
        ChannelPromise[] each = promises.toArray(new ChannelPromise[0]);
        all.addListener(
            f -> {
              for (ChannelPromise p : each) {
                if (f.isSuccess()) {
                  p.trySuccess();
                } else {
                  p.tryFailure(f.cause());
                }
              }
            });
      }
      ctx.write(b, all);
    }
    promises.clear();
  }
}
