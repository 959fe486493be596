package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A DEC written from the bytes kept for its decision sets is, byte for byte, the DEC the generic
 * encoder writes: the first time, from the cache, and after its entries were replaced.
 */
class DecisionTailsTest {
  private static final int TYPE = 0xC0A5;

  private static DecisionSet set(Random r, DecisionCommand command) {
    byte[] data = new byte[r.nextInt(40)]; // lengths that need padding, and none
    r.nextBytes(data);
    return new DecisionSet(
        new Context(1 << r.nextInt(4), r.nextInt(0x10000)),
        new DecisionFlags(false, command),
        r.nextBoolean()
            ? new DecisionData(false, DecisionDataKind.STATELESS, Bytes.of(data))
            : null,
        null,
        data.length == 0
            ? null
            : new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, Bytes.of(data)),
        r.nextBoolean() ? new DecisionData(false, DecisionDataKind.NAMED, Bytes.of(data)) : null);
  }

  private static Handle handle(Random r) {
    byte[] h = new byte[1 + r.nextInt(13)];
    r.nextBytes(h);
    return new Handle(Bytes.of(h));
  }

  private static byte[] tails(DecisionTails t, Decision d) {
    ByteBuf b = Unpooled.buffer();
    b.writeBytes(new byte[] {7, 7, 7}); // a batch's earlier messages: offsets are the batch's
    t.encode(d, b);
    b.skipBytes(3);
    return ByteBufUtil.getBytes(b);
  }

  @Test
  void everyDecWrittenFromKeptBytesIsTheGenericEncodersDec() {
    Random r = new Random(20261129);
    // More sets than entries, met again in a random order: hits, misses and replaced entries.
    List<DecisionSet> sets = new ArrayList<>();
    for (int i = 0; i < 3 * DecisionTails.ENTRIES; i++) {
      sets.add(set(r, i % 2 == 0 ? DecisionCommand.INSTALL : DecisionCommand.REMOVE));
    }
    DecisionTails t = new DecisionTails();
    for (int i = 0; i < 2_000; i++) {
      int k = r.nextInt(3);
      DecisionSet[] these = new DecisionSet[k == 0 ? 2 : 1];
      for (int j = 0; j < these.length; j++) {
        // mostly the first few, as a PDP's rule outcomes are: the cache is hit
        these[j] = sets.get(r.nextInt(4) == 0 ? r.nextInt(sets.size()) : r.nextInt(3));
      }
      Decision d = Decision.of(r.nextInt(0x10000), r.nextBoolean(), handle(r), these);
      assertArrayEquals(CopsCodec.encode(d), tails(t, d), "DEC " + i + ": " + d);
    }
  }

  @Test
  void anErrorDecAndALargeDecisionAreWrittenAsTheyAre() throws Exception {
    DecisionTails t = new DecisionTails();
    Decision error =
        Decision.error(TYPE, Handle.of("h1"), new ErrorObject(ErrorCode.UNABLE_TO_PROCESS, 0));
    assertArrayEquals(CopsCodec.encode(error), tails(t, error));
    byte[] big = new byte[DecisionTails.MAX_TAIL + 1];
    DecisionSet large =
        new DecisionSet(
            new Context(Context.R_INCOMING, 0),
            new DecisionFlags(false, DecisionCommand.INSTALL),
            null,
            null,
            new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, Bytes.of(big)),
            null);
    for (int i = 0; i < 2; i++) {
      Decision d = Decision.of(TYPE, true, Handle.of("h" + i), large);
      byte[] b = tails(t, d);
      assertArrayEquals(CopsCodec.encode(d), b);
      assertEquals(CopsCodec.decode(b), d);
    }
  }

  @Test
  void theConnectionsEncoderWritesDecsOfOneSetAsTheGenericEncoderDoes() {
    DecisionSet s = set(new Random(7), DecisionCommand.INSTALL);
    Decision a = Decision.of(TYPE, true, Handle.of("a"), s);
    Decision b = Decision.of(TYPE, false, Handle.of("bbbbb"), s);
    EmbeddedChannel ch = new EmbeddedChannel(new CopsEncoder());
    ch.write(a);
    ch.write(b);
    ch.write(a);
    ch.flush();
    ByteBuf out = ch.readOutbound();
    ByteBuf expected = Unpooled.buffer();
    expected.writeBytes(CopsCodec.encode(a)).writeBytes(CopsCodec.encode(b));
    expected.writeBytes(CopsCodec.encode(a));
    assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(out));
    out.release();
  }
}
