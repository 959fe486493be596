package dev.portcullis.pdp;

import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.PolicyEngine;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * One PEP connection's pipeline driven through an {@link EmbeddedChannel} with hand-written message
 * sequences: bytes in as a PEP would send them, bytes out decoded. Time is the fake clock's and the
 * embedded event loop's, moved together; nothing sleeps.
 */
abstract class EmbeddedPdpTest {
  static final int TYPE = AccessRequest.CLIENT_TYPE;
  static final Context CTX = new Context(Context.R_INCOMING, 0);

  FakePdpContext pdp;
  EmbeddedChannel ch;

  /** Messages written and not yet taken by {@link #next()}. */
  private final ArrayDeque<byte[]> written = new ArrayDeque<>();

  /** A new connection to a PDP whose client type {@link #TYPE} {@code engine} serves. */
  void connect(PolicyEngine engine, List<PdpConfig.Redirect> redirects, int rate, int maxHandles)
      throws Exception {
    connect(engine, redirects, rate, maxHandles, 1024);
  }

  /** As above, with at most {@code maxPending} requests being decided asynchronously. */
  void connect(
      PolicyEngine engine,
      List<PdpConfig.Redirect> redirects,
      int rate,
      int maxHandles,
      int maxPending)
      throws Exception {
    pdp = new FakePdpContext(redirects, rate, maxHandles, maxPending);
    pdp.engines.put(TYPE, engine);
    // The embedded loop's clock is the wall clock plus what advanceTimeBy added unless frozen: a
    // slow machine would then fire a timer the test has not reached yet. Frozen before anything
    // is scheduled, it moves only with advance().
    ch = new EmbeddedChannel(false, false, new PdpChannelInitializer(pdp, null));
    ch.freezeTime();
    ch.register();
  }

  @AfterEach
  void close() {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
  }

  void send(CopsMessage m) {
    ch.writeInbound(Unpooled.wrappedBuffer(CopsCodec.encode(m)));
  }

  /** The next message the PDP wrote, or null. */
  CopsMessage next() throws Exception {
    while (written.isEmpty()) {
      ByteBuf b = ch.readOutbound();
      if (b == null) {
        return null;
      }
      written.addAll(frames(b));
    }
    return CopsCodec.decode(written.poll());
  }

  /**
   * The messages in {@code b}, which it releases: the encoder writes all the messages of one flush
   * in one buffer.
   */
  static List<byte[]> frames(ByteBuf b) {
    List<byte[]> out = new ArrayList<>();
    try {
      while (b.readableBytes() >= CopsMessage.HEADER_LENGTH) {
        int len = b.getInt(b.readerIndex() + 4);
        out.add(ByteBufUtil.getBytes(b, b.readerIndex(), len));
        b.skipBytes(len);
      }
    } finally {
      b.release();
    }
    return out;
  }

  <T extends CopsMessage> T next(Class<T> type) throws Exception {
    return assertInstanceOf(type, next());
  }

  void advance(Duration d) {
    pdp.now += d.toNanos();
    ch.advanceTimeBy(d.toNanos(), NANOSECONDS);
    ch.runPendingTasks();
  }

  static Request req(String handle, String subject) {
    return Request.of(
        TYPE,
        Handle.of(handle),
        CTX,
        AccessRequest.of(AccessOperation.ACCESS, subject).toClientSI());
  }

  void open() throws Exception {
    send(ClientOpen.of(TYPE, "gw-1"));
    ClientAccept cat = next(ClientAccept.class);
    assertEquals(TYPE, cat.clientType());
    assertEquals(30, cat.kaTimer().seconds());
  }

  static void assertClose(CopsMessage m, ErrorCode code) {
    ClientClose cc = assertInstanceOf(ClientClose.class, m);
    assertEquals(code.code(), cc.error().code(), cc.toString());
  }

  static DecisionCommand command(Decision d) {
    return d.decisions().get(0).flags().decisionCommand();
  }
}
