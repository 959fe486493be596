package dev.portcullis.pep.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
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
    long ms = l.idleTimeout().toMillis();
    ch.pipeline()
        .addFirst("idle-cut", new IdleCut(l, counters))
        .addFirst("idle", new IdleStateHandler(true, 0, 0, ms, TimeUnit.MILLISECONDS));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (!(evt instanceof IdleStateEvent)) {
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
