package dev.portcullis.active.router;

import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Session;
import dev.portcullis.active.verify.Verification;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.support.LogSummary;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A router's UDP handler: each datagram is verified (unless verification is off), parked while its
 * code secret is on its way, run by its code's service and forwarded to the next hop. What becomes
 * of every packet is one {@link Outcome}, counted here and nowhere else.
 */
final class PacketHandler extends SimpleChannelInboundHandler<DatagramPacket> {
  private static final Logger log = LoggerFactory.getLogger(PacketHandler.class);

  private final String router;
  private final boolean verify;
  private final Verifier verifier;
  private final IntFunction<ActiveService> services;
  private final RouteTable routes;
  private final Counters counters;
  private final ServiceContext context;
  private final PacketView plain = new PacketView();
  private ParkedPackets parked;

  /**
   * The clock as read for the datagrams of one socket read (Netty hands a datagram channel up to 16
   * per read, then calls {@link #channelReadComplete}), 0 between reads: one clock read per batch,
   * not per packet. At most {@link #BATCH_LIMIT} packets share one reading whatever happens.
   */
  private long batchMillis;

  private int batchPackets;
  private final LogSummary failures;
  static final int BATCH_LIMIT = 64;

  /**
   * @param verify false: packets are only parsed and routed (a router configured without
   *     verification, for measurements)
   * @param services the loaded service of a code, or null
   */
  PacketHandler(
      String router,
      boolean verify,
      Verifier verifier,
      IntFunction<ActiveService> services,
      RouteTable routes,
      Counters counters,
      Clock clock) {
    super(false); // packets are released here, or kept while parked
    this.router = router;
    this.verify = verify;
    this.verifier = verifier;
    this.services = services;
    this.routes = routes;
    this.counters = counters;
    this.context = new ServiceContext(router, clock, verifier);
    // A packet can fail the same way as often as a sender likes: the first of each kind a minute.
    this.failures = new LogSummary(log, "packet failures", Duration.ofMinutes(1), clock);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    parked =
        new ParkedPackets(
            ctx.channel().eventLoop(),
            (p, behind) -> process(ctx, p, behind ? Arrival.HELD_BEHIND : Arrival.PARKED),
            ctx::flush);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
    try {
      process(ctx, packet, Arrival.FRESH);
    } finally {
      packet.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    batchMillis = 0;
    ctx.flush();
  }

  /** How a packet came to be processed. */
  private enum Arrival {
    /** Just read from the socket. */
    FRESH,
    /** Handed back after waiting for its code secret: not parked again. */
    PARKED,
    /** Handed back after waiting behind its code's parked packets: processed as if fresh. */
    HELD_BEHIND
  }

  /** The time to verify a packet at: the batch's clock reading, or a new one. */
  private long now(Arrival arrival) {
    if (arrival != Arrival.FRESH) {
      return verifier.clock().millis(); // a parked packet comes back on its own, not in a read
    }
    if (batchMillis == 0 || ++batchPackets > BATCH_LIMIT) {
      batchMillis = verifier.clock().millis();
      batchPackets = 1;
    }
    return batchMillis;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    failures.warn("socket", "router {}: {}", router, cause.toString()); // keep serving
  }

  private void process(ChannelHandlerContext ctx, DatagramPacket packet, Arrival arrival) {
    Outcome o;
    Object detail = null;
    try {
      ByteBuf content = packet.content();
      int len = content.readableBytes();
      ByteBuffer nio =
          content.nioBufferCount() == 1
              ? content.internalNioBuffer(content.readerIndex(), len)
              : ByteBuffer.wrap(ByteBufUtil.getBytes(content));
      if (!verify) {
        detail = plain.wrap(nio, nio.position(), len);
        o = detail != null ? Outcome.MALFORMED : forward(ctx, plain, content, null, null);
      } else if (arrival != Arrival.PARKED
          && !parked.isEmpty()
          && len >= ActivePacket.OFF_CODE + 4
          && parked.holdBehind(packet, nio.getInt(nio.position() + ActivePacket.OFF_CODE))) {
        o = Outcome.PENDING; // its code's earlier packets wait for their secret: it goes after them
      } else {
        Verification v = verifier.verify(now(arrival), nio, nio.position(), len);
        detail = v;
        o =
            switch (v.outcome()) {
              case ACCEPTED -> run(ctx, v, content);
              case PENDING ->
                  arrival != Arrival.PARKED && parked.park(packet, v.packet().code(), v.pending())
                      ? Outcome.PENDING
                      : Outcome.CODE_UNAVAILABLE;
              default -> v.outcome();
            };
      }
    } catch (RuntimeException e) {
      // Nothing a packet holds should get here; if something does, count it and keep serving.
      failures.warn(
          "packet", "router {}: packet from {} failed: {}", router, packet.sender(), e.toString());
      o = Outcome.MALFORMED;
    }
    counters.count(o);
    if (o.isDrop() && log.isDebugEnabled()) {
      log.debug(
          "router {}: dropped a packet from {}: {}",
          router,
          packet.sender(),
          o == Outcome.MALFORMED && detail != null ? detail : o);
    }
  }

  /** Runs an accepted packet's service and forwards what it lets through. */
  private Outcome run(ChannelHandlerContext ctx, Verification v, ByteBuf content) {
    PacketView p = v.packet();
    ActiveService service = services.apply(p.code());
    if (service == null) {
      return Outcome.UNKNOWN_CODE;
    }
    context.reset(p, service);
    ActiveService.Verdict verdict;
    try {
      verdict = service.process(context);
    } catch (RuntimeException e) {
      // A faulty service drops its packet; the router goes on serving every flow.
      failures.warn(
          "code " + p.code(),
          "router {}: code {} failed on a packet: {}",
          router,
          p.code(),
          e.toString());
      verdict = ActiveService.Verdict.DROP;
    }
    if (context.decryptFailed()) {
      return Outcome.DECRYPT_FAILED;
    }
    if (verdict == ActiveService.Verdict.DROP) {
      return Outcome.SERVICE_DROP;
    }
    return forward(ctx, p, content, context.replacement(), v.session());
  }

  private Outcome forward(
      ChannelHandlerContext ctx,
      PacketView p,
      ByteBuf content,
      byte[] newPayload,
      Session session) {
    InetSocketAddress next = routes.nextHop(p);
    if (next == null) {
      return Outcome.NO_ROUTE;
    }
    ByteBuf out =
        newPayload == null
            ? content.retain()
            : Unpooled.wrappedBuffer(Resealer.reseal(p, newPayload, session.mac()));
    ctx.write(new DatagramPacket(out, next));
    return Outcome.ACCEPTED;
  }
}
