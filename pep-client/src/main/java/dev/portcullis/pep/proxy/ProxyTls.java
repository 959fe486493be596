package dev.portcullis.pep.proxy;

import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.support.LogSummary;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/** The proxy's TLS: termination with client certificates, and TLS to the upstream. */
final class ProxyTls {
  private ProxyTls() {}

  static SslContext server(ProxyConfig.Listener l) {
    if (l.tls() == null) {
      return null;
    }
    try {
      return SslContextBuilder.forServer(l.tls().certificate().toFile(), l.tls().key().toFile())
          .trustManager(l.tls().trust().toFile())
          .clientAuth(ClientAuth.REQUIRE) // the client's certificate names the subject
          .protocols("TLSv1.3", "TLSv1.2")
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalStateException("proxy listener " + l.name() + ": TLS: " + e.getMessage(), e);
    }
  }

  /** The context for TLS to {@code l}'s upstream, or null when it speaks plain TCP. */
  static SslContext upstream(ProxyConfig.Listener l) {
    if (l.upstreamTrust() == null) {
      return null;
    }
    try {
      return SslContextBuilder.forClient()
          .trustManager(l.upstreamTrust().toFile())
          .endpointIdentificationAlgorithm("HTTPS") // the certificate names the upstream
          .protocols("TLSv1.3", "TLSv1.2")
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalStateException(
          "proxy listener " + l.name() + ": upstream TLS: " + e.getMessage(), e);
    }
  }

  /**
   * TLS termination: the handshake first (reads driven by hand, as nothing else is read before the
   * decision), then the subject is the client certificate's CN.
   */
  static void terminate(
      ProxyConfig.Listener l,
      SocketChannel ch,
      SslContext tls,
      ProxyCounters counters,
      LogSummary refusals,
      Consumer<String> decide) {
    counters.accepted.incrementAndGet();
    SslHandler ssl = tls.newHandler(ch.alloc());
    ch.pipeline().addLast(ssl);
    ch.pipeline().addLast(ProxyTls.HELD, new ProxyTls.Held());
    ssl.handshakeFuture()
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                counters.tlsRefused.incrementAndGet();
                String why = refusal(f.cause());
                refusals.warn(
                    l.name() + ": " + kind(why),
                    "proxy {}: TLS from {} refused: {}",
                    l.name(),
                    ch.remoteAddress(),
                    why);
                ch.close();
                return;
              }
              String cn = null;
              try {
                Certificate[] peer = ssl.engine().getSession().getPeerCertificates();
                cn =
                    ProxyTls.commonName(
                        ((X509Certificate) peer[0]).getSubjectX500Principal().getName());
              } catch (SSLPeerUnverifiedException e) {
                // no certificate: no subject
              }
              decide.accept(cn);
            });
  }

  /** Why a client's TLS failed, in words (never "General OpenSslEngine problem"). */
  static String refusal(Throwable cause) {
    for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof NotSslRecordException) {
        return "not TLS (the client spoke something else)";
      }
      if (c instanceof ClosedChannelException) {
        return "closed by the client during the handshake";
      }
    }
    return CopsTls.failureReason(cause);
  }

  /** The kind a refusal is counted under in the summary: its reason up to the first detail. */
  private static String kind(String why) {
    if (why.startsWith("certificate refused")) {
      return "certificate refused";
    }
    int colon = why.indexOf(':');
    int paren = why.indexOf(" (");
    int end = colon < 0 ? paren : paren < 0 ? colon : Math.min(colon, paren);
    return end < 0 ? why : why.substring(0, end);
  }

  static final String HELD = "held";

  /**
   * Drives the TLS handshake's reads (nothing else reads before the decision) and holds what the
   * client sent with its last handshake flight (TLS 1.3 lets application data follow the Finished
   * at once) until the upstream is there to take it.
   */
  static final class Held extends ChannelInboundHandlerAdapter {
    private final List<Object> held = new ArrayList<>();

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.read(); // the ClientHello
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      held.add(msg);
    }

    /** Hands the held bytes to {@code upstream} and leaves the pipeline. */
    void release(ChannelHandlerContext ctx, Channel upstream) {
      for (Object m : held) {
        upstream.write(m);
      }
      held.clear();
      upstream.flush();
      ctx.pipeline().remove(this);
    }

    /**
     * An error before the connection is handed on (bytes that are not TLS, a reset): the connection
     * is closed, and the handshake's end says why, once per kind a minute. Nothing reaches the end
     * of the pipeline, where Netty logs each one with its stack trace.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      held.forEach(ReferenceCountUtil::release); // closed before the upstream took them
      held.clear();
    }
  }

  /** The CN of an RFC 2253 name, or null. */
  static String commonName(String dn) {
    try {
      for (Rdn r : new LdapName(dn).getRdns()) {
        if (r.getType().equalsIgnoreCase("CN")) {
          return r.getValue().toString();
        }
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }
}
