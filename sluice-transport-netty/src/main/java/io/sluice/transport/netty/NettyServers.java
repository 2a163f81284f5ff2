package io.sluice.transport.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport.Bound;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The listening half the stream-socket servers (TCP, unix domain sockets) share: the connection
 * cap, optional TLS, one {@link NettyDuplexTransport} per accepted channel, and the {@link Bound}
 * handed back.
 */
final class NettyServers {
  private NettyServers() {}

  /** What a server does around the shared part; both default to nothing. */
  interface Hooks {
    /** Called on the server channel's loop once bound; throwing closes it and fails the bind. */
    default void afterBind(Channel server) throws Exception {}

    /** Called once the server channel has closed, before {@link Bound#onClose()} completes. */
    default void afterClose() {}
  }

  /**
   * Binds {@code channelType} (which must match {@code loops}' engine) to {@code address}.
   * {@code bootstrap} sets the channel options of its kind of socket.
   */
  static CompletableFuture<Bound> bind(
      String kind,
      EventLoopGroup loops,
      Class<? extends ServerChannel> channelType,
      SocketAddress address,
      Consumer<ServerBootstrap> bootstrap,
      SslContext ssl,
      int maxConnections,
      Consumer<DuplexTransport> onConnection,
      Hooks hooks) {
    AtomicInteger open = new AtomicInteger();
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loops)
            .channel(channelType)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (open.incrementAndGet() > maxConnections) {
                      open.decrementAndGet();
                      ch.close();
                      return;
                    }
                    ch.closeFuture().addListener(f -> open.decrementAndGet());
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    }
                    NettyDuplexTransport t = new NettyDuplexTransport(ch);
                    ch.pipeline().addLast(t);
                    onConnection.accept(t);
                  }
                });
    bootstrap.accept(b);
    CompletableFuture<Bound> result = new CompletableFuture<>();
    ChannelFuture bind = b.bind(address);
    bind.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(f.cause());
            return;
          }
          Channel server = bind.channel();
          try {
            hooks.afterBind(server);
          } catch (Exception | Error e) {
            server.close().addListener(c -> hooks.afterClose());
            result.completeExceptionally(e);
            return;
          }
          CompletableFuture<Void> closed = new CompletableFuture<>();
          server
              .closeFuture()
              .addListener(
                  c -> {
                    try {
                      hooks.afterClose();
                    } finally {
                      closed.complete(null);
                    }
                  });
          result.complete(new BoundServer(kind, server, server.localAddress(), closed));
        });
    return result;
  }

  private static final class BoundServer implements Bound {
    private final String kind;
    private final Channel server;
    private final SocketAddress address;
    private final CompletableFuture<Void> closed;

    BoundServer(String kind, Channel server, SocketAddress address, CompletableFuture<Void> closed) {
      this.kind = kind;
      this.server = server;
      this.address = address;
      this.closed = closed;
    }

    @Override
    public SocketAddress address() {
      return address;
    }

    @Override
    public void close() {
      server.close();
    }

    @Override
    public CompletableFuture<Void> onClose() {
      return closed;
    }

    @Override
    public String toString() {
      return kind + " server " + address;
    }
  }
}
