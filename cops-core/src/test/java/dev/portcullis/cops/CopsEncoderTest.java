package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import org.junit.jupiter.api.Test;

/** The encoder writes the messages of one flush as one buffer, in order, each promise kept. */
class CopsEncoderTest {
  private static final int TYPE = 0xC0A5;

  private static CopsMessage keepAlive() {
    return new KeepAlive(false, null);
  }

  private static CopsMessage close(int i) {
    return ClientClose.of(TYPE, ErrorCode.SHUTTING_DOWN, i);
  }

  private static byte[] bytes(CopsMessage... ms) {
    ByteBuf b = Unpooled.buffer();
    for (CopsMessage m : ms) {
      b.writeBytes(CopsCodec.encode(m));
    }
    return ByteBufUtil.getBytes(b);
  }

  private static byte[] take(EmbeddedChannel ch) {
    ByteBuf b = ch.readOutbound();
    try {
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  @Test
  void theMessagesOfOneFlushLeaveAsOneBufferAndEveryPromiseCompletes() {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsEncoder());
    ChannelFuture a = ch.write(close(1));
    ChannelFuture b = ch.write(close(2));
    ChannelFuture c = ch.write(keepAlive());
    assertNull(ch.readOutbound(), "nothing passed on before the flush");
    assertFalse(a.isDone());
    ch.flush();
    assertArrayEquals(bytes(close(1), close(2), keepAlive()), take(ch));
    assertNull(ch.readOutbound());
    assertTrue(a.isSuccess() && b.isSuccess() && c.isSuccess());
    assertFalse(ch.finish());
  }

  @Test
  void anythingElseWrittenBetweenMessagesKeepsItsPlace() {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsEncoder());
    ch.write(close(1));
    ch.write(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}));
    ch.writeAndFlush(close(2));
    assertArrayEquals(bytes(close(1)), take(ch));
    assertArrayEquals(new byte[] {1, 2, 3, 4}, take(ch));
    assertArrayEquals(bytes(close(2)), take(ch));
    assertFalse(ch.finish());
  }

  @Test
  void aLargeBatchIsPassedOnWithoutWaitingForTheFlush() {
    EmbeddedChannel ch = new EmbeddedChannel(new CopsEncoder());
    int one = CopsCodec.encode(close(0)).length;
    int n = (CopsEncoder.BATCH_LIMIT + one - 1) / one; // the write that reaches the limit
    for (int i = 0; i < n; i++) {
      ch.write(close(i));
    }
    // (the outbound buffer counts an entry's bookkeeping too)
    assertTrue(
        ch.unsafe().outboundBuffer().totalPendingWriteBytes() >= n * one,
        "passed on at the limit, before any flush");
    ch.write(close(n));
    ch.flush();
    ByteBuf b = ch.readOutbound();
    assertEquals(n * one, b.readableBytes());
    b.release();
    assertArrayEquals(bytes(close(n)), take(ch), "the next batch");
    assertFalse(ch.finish());
  }

  @Test
  void aMessageThatCannotBeEncodedFailsAloneAndLeavesNothing() {
    CopsMessage bad = close(99);
    EmbeddedChannel ch =
        new EmbeddedChannel(
            new CopsEncoder() {
              @Override
              protected void encode(CopsMessage msg, ByteBuf out) {
                super.encode(msg, out); // half written when it fails: none of it may stay
                if (msg.equals(bad)) {
                  throw new IllegalStateException("no signing key");
                }
              }
            });
    ChannelFuture ok1 = ch.write(close(1));
    ChannelFuture failed = ch.write(bad);
    ChannelFuture ok2 = ch.write(close(2));
    ch.flush();
    assertInstanceOf(EncoderException.class, failed.cause());
    assertArrayEquals(bytes(close(1), close(2)), take(ch));
    assertTrue(ok1.isSuccess() && ok2.isSuccess());
    assertFalse(ch.finish());
  }
}
