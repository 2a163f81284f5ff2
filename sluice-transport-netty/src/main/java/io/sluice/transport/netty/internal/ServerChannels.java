package io.sluice.transport.netty.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport.Bound;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The listening half every socket server shares (TCP, unix domain sockets, WebSocket): the
 * connection cap, optional TLS, the accepted channel's own handlers, and the {@link Bound} handed
 * back. Internal: not an API.
 */
public final class ServerChannels {
  private ServerChannels() {}

  /** The handlers an accepted channel gets after TLS; it hands a transport on when it has one. */
  public interface ChildSetup {
    void init(Channel child);
  }

  /** A child setup for the stream sockets: one {@link NettyDuplexTransport}, handed on at once. */
  public static ChildSetup lengthPrefixed(Consumer<DuplexTransport> onConnection) {
    return ch -> {
      NettyDuplexTransport t = new NettyDuplexTransport(ch);
      ch.pipeline().addLast(t);
      onConnection.accept(t);
    };
  }

  /** What a server does around the shared part; both default to nothing. */
  public interface Hooks {
    /** Called on the server channel's loop once bound; throwing closes it and fails the bind. */
    default void afterBind(Channel server) throws Exception {}

    /** Called once the server channel has closed, before {@link Bound#onClose()} completes. */
    default void afterClose() {}
  }

  /**
   * Binds {@code channelType} (which must match {@code loops}' engine) to {@code address}.
   * {@code bootstrap} sets the channel options of its kind of socket; {@code description} names
   * the bound server (its {@code toString}) from its address.
   */
  public static CompletableFuture<Bound> bind(
      Function<SocketAddress, String> description,
      EventLoopGroup loops,
      Class<? extends ServerChannel> channelType,
      SocketAddress address,
      Consumer<ServerBootstrap> bootstrap,
      SslContext ssl,
      int maxConnections,
      ChildSetup child,
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
                      SnugTlsRecords.add(ch.pipeline(), ssl.newHandler(ch.alloc()));
                    }
                    child.init(ch);
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
          ListenerRelease release = ListenerRelease.of(server);
          server
              .closeFuture()
              .addListener(
                  c ->
                      release.afterClose( // the port free again before onClose() completes
                          () -> {
                            try {
                              hooks.afterClose();
                            } finally {
                              closed.complete(null);
                            }
                          }));
          result.complete(new BoundServer(description, server, server.localAddress(), closed));
        });
    return result;
  }

  private static final class BoundServer implements Bound {
    private final Function<SocketAddress, String> description;
    private final Channel server;
    private final SocketAddress address;
    private final CompletableFuture<Void> closed;

    BoundServer(
        Function<SocketAddress, String> description,
        Channel server,
        SocketAddress address,
        CompletableFuture<Void> closed) {
      this.description = description;
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
      return description.apply(address);
    }
  }
}
