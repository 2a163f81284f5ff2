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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Serves RSocket over TCP (epoll when available, NIO otherwise), optionally with TLS. Immutable:
 * each {@code with*} returns a new instance.
 *
 * <p>At most {@link #DEFAULT_MAX_CONNECTIONS} connections are open at once unless {@link
 * #withMaxConnections} says otherwise; a connection over the cap is closed as soon as it is
 * accepted, before any per-connection state is built.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class TcpServerTransport implements ServerTransport {
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int maxConnections;

  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  private TcpServerTransport(
      InetSocketAddress address, EventLoopGroup group, SslContext ssl, int maxConnections) {
    this.address = address;
    this.group = group;
    this.ssl = ssl;
    this.maxConnections = maxConnections;
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static TcpServerTransport create(String host, int port) {
    return new TcpServerTransport(
        new InetSocketAddress(host, port), null, null, DEFAULT_MAX_CONNECTIONS);
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public TcpServerTransport withEventLoopGroup(EventLoopGroup group) {
    return new TcpServerTransport(
        address, Objects.requireNonNull(group, "group"), ssl, maxConnections);
  }

  /** Serves TLS with {@code ssl} (a server context). */
  public TcpServerTransport withSsl(SslContext ssl) {
    return new TcpServerTransport(
        address, group, Objects.requireNonNull(ssl, "ssl"), maxConnections);
  }

  /**
   * Most connections open at once on the bound server; connections beyond it are closed on
   * accept, without a reply.
   */
  public TcpServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new TcpServerTransport(address, group, ssl, maxConnections);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    AtomicInteger open = new AtomicInteger();
    int max = maxConnections;
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
                    if (open.incrementAndGet() > max) {
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
