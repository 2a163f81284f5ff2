package io.sluice.transport.netty.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Picks epoll when the native library loads, NIO otherwise, and owns the shared default group. */
public final class EventLoops {
  private EventLoops() {}

  /** Set {@code -Dsluice.transport.nio=true} to force NIO. */
  public static final boolean EPOLL = !Boolean.getBoolean("sluice.transport.nio") && Epoll.isAvailable();

  private static final class Shared {
    static final EventLoopGroup GROUP = newGroup(0, "sluice-io");
  }

  /** The JVM-wide default group (one thread per core), created on first use; daemon threads. */
  public static EventLoopGroup shared() {
    return Shared.GROUP;
  }

  /** A new group of {@code threads} loops (0: one per core). */
  public static EventLoopGroup newGroup(int threads, String name) {
    IoHandlerFactory factory = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
  }

  public static Class<? extends SocketChannel> socketChannel() {
    return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public static Class<? extends ServerSocketChannel> serverSocketChannel() {
    return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }
}
