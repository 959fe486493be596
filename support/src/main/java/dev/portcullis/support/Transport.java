package dev.portcullis.support;

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

/**
 * The Netty transport every server and client uses: epoll where Linux's native library loads, NIO
 * elsewhere. One place decides, so event loops and channel classes never mismatch.
 */
public enum Transport {
  EPOLL,
  NIO;

  /** Epoll if it is available here, else NIO. */
  public static Transport best() {
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  /** The transport of an existing event loop group's channels: epoll for an epoll group. */
  public static Transport of(EventLoopGroup group) {
    return group instanceof EpollEventLoopGroup ? EPOLL : NIO;
  }

  /** An event loop group of {@code threads} threads (0: Netty's default, twice the cores). */
  public EventLoopGroup group(int threads) {
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
    return this == EPOLL ? "epoll" : "NIO";
  }
}
