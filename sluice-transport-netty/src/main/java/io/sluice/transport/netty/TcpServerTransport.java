package io.sluice.transport.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Serves RSocket over TCP (epoll when available, NIO otherwise), optionally with TLS. Immutable:
 * each {@code with*} returns a new instance.
 */
public final class TcpServerTransport implements ServerTransport {
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final SslContext ssl;

  private TcpServerTransport(InetSocketAddress address, EventLoopGroup group, SslContext ssl) {
    this.address = address;
    this.group = group;
    this.ssl = ssl;
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static TcpServerTransport create(String host, int port) {
    return new TcpServerTransport(new InetSocketAddress(host, port), null, null);
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public TcpServerTransport withEventLoopGroup(EventLoopGroup group) {
    return new TcpServerTransport(address, Objects.requireNonNull(group, "group"), ssl);
  }

  /** Serves TLS with {@code ssl} (a server context). */
  public TcpServerTransport withSsl(SslContext ssl) {
    return new TcpServerTransport(address, group, Objects.requireNonNull(ssl, "ssl"));
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loops)
            .channel(EventLoops.serverSocketChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.AUTO_READ, false)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    }
                    NettyDuplexTransport t = new NettyDuplexTransport(ch);
                    ch.pipeline().addLast(t);
                    onConnection.accept(t);
                  }
                });
    CompletableFuture<Bound> result = new CompletableFuture<>();
    ChannelFuture bind = b.bind(address);
    bind.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(f.cause());
            return;
          }
          Channel server = bind.channel();
          CompletableFuture<Void> closed = new CompletableFuture<>();
          server.closeFuture().addListener(c -> closed.complete(null));
          result.complete(
              new Bound() {
                @Override
                public SocketAddress address() {
                  return server.localAddress();
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
                  return "tcp server " + server.localAddress();
                }
              });
        });
    return result;
  }
}
