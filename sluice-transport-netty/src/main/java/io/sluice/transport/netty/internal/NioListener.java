package io.sluice.transport.netty.internal;

import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * netty's NIO TCP listener, which can tell when its port is free again: the JDK closes a socket
 * channel that a selector still holds only when that selector next selects (it processes the
 * cancelled key, then kills the socket), after netty has completed the channel's close future.
 * See {@link ListenerRelease}. Internal: not an API.
 */
public final class NioListener extends NioServerSocketChannel {
  /** For netty's reflective channel factory. */
  public NioListener() {}

  /**
   * Whether the JDK has let go of the socket: closed, and no selector holds it any more. On the
   * channel's event loop only (the JDK kills the socket on that thread just after it forgets the
   * key).
   */
  boolean released() {
    return !javaChannel().isOpen() && !javaChannel().isRegistered();
  }
}
