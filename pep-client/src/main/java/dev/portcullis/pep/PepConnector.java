package dev.portcullis.pep;

import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.integrity.SigningCopsEncoder;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the PEP's connections: the pipeline (decoder, encoder, keep-alive watch, {@link
 * PepConnectionHandler}), the connect, the first Client-Open (client type 0 with Integrity-TLS when
 * the PEP starts TLS, RFC 4261 section 5.1), and the reconnect after a lost connection, on the
 * {@link ReconnectPolicy}'s back-off. Event loop only.
 */
final class PepConnector implements PepConnectionHandler.Links {
  private static final Logger log = LoggerFactory.getLogger(PepConnector.class);

  private final PepState state;
  private final TlsSessionReuse tls;
  private final Duration connectTimeout;
  private final Clock clock;

  /**
   * @param tls the TLS context and reuse policy, or null when the PEP has no TLS
   * @param clock the wall clock Integrity keys' validity is judged by
   */
  PepConnector(PepState state, TlsSessionReuse tls, Duration connectTimeout, Clock clock) {
    this.state = state;
    this.tls = tls;
    this.connectTimeout = connectTimeout;
    this.clock = clock;
  }

  @Override
  public void connect() {
    state.lastError = null;
    InetSocketAddress to = state.route.target();
    if (tls != null) {
      try {
        tls.prepare();
      } catch (PepException e) {
        state.failOpening(e);
        return;
      }
    }
    PepSecurity sec = state.security;
    IntegritySession integrity =
        sec == null || sec.keys() == null ? null : new IntegritySession(sec.keys(), clock, false);
    if (integrity != null) {
      integrity.signOutgoing(true);
    }
    new Bootstrap()
        .group(state.loop)
        .channel(Transport.of(state.loop.parent()).socketChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                // An if, not a conditional expression: JDK 25's javac records the two encoders'
                // common superclass (netty-codec's) in the stack map, JDK 17's does not, and the
                // dependency check would then disagree between the two.
                ChannelHandler encoder;
                if (integrity == null) {
                  encoder = new CopsEncoder();
                } else {
                  encoder = new SigningCopsEncoder(integrity);
                }
                ch.pipeline()
                    .addLast(
                        "decoder", new CopsDecoder(CopsCodec.DEFAULT_MAX_MESSAGE_SIZE, integrity))
                    .addLast("encoder", encoder)
                    .addLast("keepalive", new PepKeepAlive(state.pepId))
                    .addLast(
                        "pep", new PepConnectionHandler(state, tls, PepConnector.this, integrity));
              }
            })
        .connect(to)
        .addListener((ChannelFuture f) -> connected(f, to));
  }

  private static final Pattern NATIVE =
      Pattern.compile("^\\w+\\(\\.\\.\\) failed with error\\(-?\\d+\\): ([^:]+)(: .*)?$");

  /**
   * A connect failure in words: the epoll transport's "finishConnect(..) failed with error(-111):
   * Connection refused: /127.0.0.1:3288" becomes "connection refused" (the address is said once, by
   * the caller).
   */
  static String why(Throwable t) {
    if (t.getMessage() == null) {
      return t.getClass().getSimpleName();
    }
    String m = t.getMessage();
    Matcher native0 = NATIVE.matcher(m);
    if (native0.matches()) {
      m = native0.group(1);
    } else if (m.contains(": /")) {
      m = m.substring(0, m.lastIndexOf(": /")); // NIO's "Connection refused: /127.0.0.1:3288"
    }
    return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
  }

  private void connected(ChannelFuture f, InetSocketAddress to) {
    if (!f.isSuccess()) {
      PepException e =
          new PepException(
              ErrorCode.COMMUNICATION_FAILURE.code(),
              0,
              "cannot connect to " + HostPort.of(to) + ": " + why(f.cause()));
      if (state.opening != null && !state.route.anotherToTry()) {
        state.failOpening(e); // the caller asked and was told; no silent retries
      } else {
        lost(e); // the next PDP of a fleet's list, or a reconnect
      }
      return;
    }
    state.channel = f.channel();
    state.tlsUp = false;
    if (tls != null && state.security.initiateTls()) {
      // RFC 4261 section 5.1: client-type 0 Client-Open with Integrity-TLS.
      state.channel.writeAndFlush(
          new ClientOpen(
              0,
              false,
              new PepId(state.pepId),
              null,
              null,
              new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
    } else {
      sendOpen(state.channel);
    }
  }

  @Override
  public void sendOpen(Channel ch) {
    InetSocketAddress last = state.lastPdp;
    PdpAddress lastPdp =
        last == null ? null : new PdpAddress(true, last.getAddress(), last.getPort());
    ch.writeAndFlush(
        new ClientOpen(state.clientType, false, new PepId(state.pepId), null, lastPdp, null));
  }

  @Override
  public void lost(PepException why) {
    if (state.closing) {
      return;
    }
    long delay = state.route.lost();
    log.info(
        "PEP {}: {}; reconnecting to {} in {} ms",
        state.pepId,
        why.getMessage(),
        state.route.target(),
        delay);
    state.loop.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
  }
}
