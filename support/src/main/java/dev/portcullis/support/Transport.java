package dev.portcullis.support;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport every server and client uses, decided in this one place so that event loops
 * and channel classes never mismatch: epoll where Linux's native library loads, NIO elsewhere, or
 * the one {@value #PROPERTY} names. The choice is said once, when the first event loop group is
 * made. (Netty 4.2's io_uring transport was tried and measured, and Netty 4.2.18 lost data on
 * half-closed epoll connections: docs/benchmarks.md, "Transports".)
 */
public enum Transport {
  EPOLL("epoll"),
  NIO("NIO");

  /** The system property that picks a transport: {@code epoll} or {@code nio}. */
  public static final String PROPERTY = "portcullis.transport";

  private static final Logger log = LoggerFactory.getLogger(Transport.class);

  private final String label;

  Transport(String label) {
    this.label = label;
  }

  /**
   * Decided once, and said once, when the first event loop group is made (not when a class that
   * names the transport loads: a server that stops before it listens, a port in use say, says
   * nothing about its transport).
   */
  private static final class Chosen {
    static final List<Runnable> SAY = new ArrayList<>(1);
    static final Transport BEST = choose(System.getProperty(PROPERTY), SAY::add);
    static final AtomicBoolean SAID = new AtomicBoolean();

    static void say() {
      if (SAID.compareAndSet(false, true)) {
        SAY.forEach(Runnable::run);
      }
    }
  }

  /**
   * The transport of this process: the one {@value #PROPERTY} names if it is available here (else,
   * with a warning saying why, the default), by default epoll if it is available, else NIO.
   */
  public static Transport best() {
    return Chosen.BEST;
  }

  /**
   * The transport {@code wanted} names, or the default; what to log about it goes to {@code say}.
   */
  static Transport choose(String wanted, Consumer<Runnable> say) {
    Transport fallback = EPOLL.available() ? EPOLL : NIO;
    if (wanted == null || wanted.isBlank()) {
      say.accept(
          () ->
              log.info(
                  "transport: {} (the default; -D{}=epoll|nio picks another)", fallback, PROPERTY));
      return fallback;
    }
    Transport t = parse(wanted);
    if (t == null) {
      say.accept(
          () ->
              log.warn(
                  "transport: -D{}={} is not epoll or nio: {} instead",
                  PROPERTY,
                  wanted,
                  fallback));
      return fallback;
    }
    String why = t.unavailable();
    if (why != null) {
      say.accept(
          () -> log.warn("transport: {} is not available here ({}): {} instead", t, why, fallback));
      return fallback;
    }
    say.accept(() -> log.info("transport: {} (-D{})", t, PROPERTY));
    return t;
  }

  /** The transport a name given by a user means ({@code epoll}, {@code nio}), or null. */
  public static Transport parse(String name) {
    switch (name.strip().toLowerCase(Locale.ROOT)) {
      case "epoll":
        return EPOLL;
      case "nio":
        return NIO;
      default:
        return null;
    }
  }

  /** Whether this transport's native part loads here (NIO always does). */
  public boolean available() {
    return unavailable() == null;
  }

  /** Why this transport cannot run here, or null if it can. */
  public String unavailable() {
    if (this == NIO || Epoll.isAvailable()) {
      return null;
    }
    return String.valueOf(Epoll.unavailabilityCause().getMessage());
  }

  /**
   * The transport of an existing event loop group's (or event loop's) channels, or null if it is
   * neither (an embedded channel's loop, say).
   */
  public static Transport of(EventLoopGroup group) {
    EventLoopGroup g = group instanceof EventLoop l && l.parent() != null ? l.parent() : group;
    return g instanceof EpollEventLoopGroup ? EPOLL : g instanceof NioEventLoopGroup ? NIO : null;
  }

  /** An event loop group of {@code threads} threads (0: Netty's default, twice the cores). */
  public EventLoopGroup group(int threads) {
    Chosen.say();
    return this == EPOLL ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
  }

  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  public Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public Class<? extends DatagramChannel> datagramChannel() {
    return this == EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
  }

  /** "epoll" or "NIO", for log lines. */
  @Override
  public String toString() {
    return label;
  }
}
