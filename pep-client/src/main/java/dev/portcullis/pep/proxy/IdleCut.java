package dev.portcullis.pep.proxy;

import dev.portcullis.support.IdleWatch;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a proxied channel when it has neither read anything nor got any of its queued bytes out
 * for the listener's idle timeout (progress writing counts: a slow reader that takes bytes is not
 * idle). Without it a connection stalled by back-pressure kept both sides, and a place under {@code
 * max-connections}, for as long as the stalled peer liked: with reading paused, the proxy does not
 * even see the other side leave.
 */
final class IdleCut extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(IdleCut.class);

  private final ProxyConfig.Listener listener;
  private final ProxyCounters counters;

  private IdleCut(ProxyConfig.Listener listener, ProxyCounters counters) {
    this.listener = listener;
    this.counters = counters;
  }

  /** Puts the idle watch first in {@code ch}'s pipeline. */
  static void install(Channel ch, ProxyConfig.Listener l, ProxyCounters counters) {
    Duration period = l.idleTimeout();
    ch.pipeline()
        .addFirst("idle-cut", new IdleCut(l, counters))
        .addFirst("idle", IdleWatch.traffic(period));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt != IdleWatch.Event.ALL_IDLE) {
      ctx.fireUserEventTriggered(evt);
      return;
    }
    if (counters.idleClosed.getAndIncrement() == 0) {
      log.info(
          "proxy {}: a connection idle for {} closed (idle-timeout; further ones are counted)",
          listener.name(),
          listener.idleTimeout());
    }
    ctx.close();
  }
}
