package dev.portcullis.support;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening channel's handler ({@code ServerBootstrap.handler}): a failed accept (the process
 * out of file descriptors, the kernel out of memory) is one clear line a minute naming the listener
 * and what to do, instead of Netty's stack trace at the end of the pipeline; and accepting pauses
 * for a second, as Netty's own acceptor would, so that a listener out of descriptors does not spin.
 * Nothing is forwarded: the failure ends here.
 */
@ChannelHandler.Sharable
public final class AcceptFailures extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(AcceptFailures.class);

  private final String listener;
  private final LogSummary failures;

  /**
   * @param listener what listens, as the log line names it before the address it listens on ({@code
   *     PDP}, {@code proxy echo})
   * @param clock paces the summaries (a minute each)
   */
  public AcceptFailures(String listener, Clock clock) {
    this.listener = listener;
    this.failures = new LogSummary(log, "failed accepts", Duration.ofMinutes(1), clock);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    String why = String.valueOf(cause.getMessage());
    boolean descriptors = why.toLowerCase(Locale.ROOT).contains("too many open files");
    failures.warn(
        descriptors ? "open files" : cause.getClass().getSimpleName(),
        "{} on {}: cannot accept a connection: {}{}",
        listener,
        ctx.channel().localAddress() instanceof InetSocketAddress a
            ? HostPort.of(a)
            : String.valueOf(ctx.channel().localAddress()),
        why,
        descriptors
            ? " (the process's open-file limit: raise LimitNOFILE= in its systemd unit, or ulimit"
                + " -n)"
            : "");
    ChannelConfig config = ctx.channel().config();
    if (config.isAutoRead()) {
      config.setAutoRead(false);
      ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), 1, TimeUnit.SECONDS);
    }
  }
}
