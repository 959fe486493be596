package dev.portcullis.support;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport every server and client uses, decided in this one place so that event loops
 * and channel classes never mismatch: epoll where Linux's native library loads, NIO elsewhere; or
 * io_uring where the kernel offers it and {@value #PROPERTY} asks for it. The choice is logged
 * once, at the first server or client to start. docs/benchmarks.md ("Transports") has the figures
 * that keep epoll the default.
 */
public enum Transport {
  IO_URING("io_uring"),
  EPOLL("epoll"),
  NIO("NIO");

  /** The system property that picks a transport: {@code io_uring}, {@code epoll} or {@code nio}. */
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
                  "transport: {} (the default; -D{}=io_uring|epoll|nio picks another)",
                  fallback,
                  PROPERTY));
      return fallback;
    }
    Transport t = parse(wanted);
    if (t == null) {
      say.accept(
          () ->
              log.warn(
                  "transport: -D{}={} is not io_uring, epoll or nio: {} instead",
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

  /** The transport a name given by a user means ({@code io_uring}, {@code epoll}, {@code nio}). */
  public static Transport parse(String name) {
    switch (name.strip().toLowerCase(Locale.ROOT)) {
      case "io_uring":
      case "io-uring":
      case "iouring":
        return IO_URING;
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
    Throwable cause =
        switch (this) {
          case IO_URING -> IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
          case EPOLL -> Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
          case NIO -> null;
        };
    return cause == null ? null : String.valueOf(cause.getMessage());
  }

  /**
   * The transport of an existing event loop group's (or event loop's) channels, or null if it is
   * none of these (an embedded channel's loop, say).
   */
  public static Transport of(EventLoopGroup group) {
    if (group instanceof IoEventLoopGroup g) {
      for (Transport t : values()) {
        if (g.isIoType(t.handler())) {
          return t;
        }
      }
    }
    return null;
  }

  private Class<? extends IoHandler> handler() {
    return switch (this) {
      case IO_URING -> IoUringIoHandler.class;
      case EPOLL -> EpollIoHandler.class;
      case NIO -> NioIoHandler.class;
    };
  }

  private IoHandlerFactory factory() {
    return switch (this) {
      case IO_URING -> IoUringIoHandler.newFactory();
      case EPOLL -> EpollIoHandler.newFactory();
      case NIO -> NioIoHandler.newFactory();
    };
  }

  /** An event loop group of {@code threads} threads (0: Netty's default, twice the cores). */
  public EventLoopGroup group(int threads) {
    Chosen.say();
    return new MultiThreadIoEventLoopGroup(threads, factory());
  }

  public Class<? extends ServerChannel> serverChannel() {
    return switch (this) {
      case IO_URING -> IoUringServerSocketChannel.class;
      case EPOLL -> EpollServerSocketChannel.class;
      case NIO -> NioServerSocketChannel.class;
    };
  }

  public Class<? extends SocketChannel> socketChannel() {
    return switch (this) {
      case IO_URING -> IoUringSocketChannel.class;
      case EPOLL -> EpollSocketChannel.class;
      case NIO -> NioSocketChannel.class;
    };
  }

  public Class<? extends DatagramChannel> datagramChannel() {
    return switch (this) {
      case IO_URING -> IoUringDatagramChannel.class;
      case EPOLL -> EpollDatagramChannel.class;
      case NIO -> NioDatagramChannel.class;
    };
  }

  /** "io_uring", "epoll" or "NIO", for log lines. */
  @Override
  public String toString() {
    return label;
  }
}
