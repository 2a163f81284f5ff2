package io.sluice.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to an RSocket server over TCP (epoll when available, NIO otherwise), optionally with
 * TLS. Immutable: each {@code with*} returns a new instance.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class TcpClientTransport implements ClientTransport {
  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int connectTimeoutMillis;

  private TcpClientTransport(
      String host, int port, EventLoopGroup group, SslContext ssl, int connectTimeoutMillis) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.ssl = ssl;
    this.connectTimeoutMillis = connectTimeoutMillis;
  }

  public static TcpClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new TcpClientTransport(Objects.requireNonNull(host, "host"), port, null, null, 10_000);
  }

  public static TcpClientTransport create(InetSocketAddress address) {
    return create(address.getHostString(), address.getPort());
  }

  public TcpClientTransport withEventLoopGroup(EventLoopGroup group) {
    return new TcpClientTransport(
        host, port, Objects.requireNonNull(group, "group"), ssl, connectTimeoutMillis);
  }

  /** Speaks TLS with {@code ssl} (a client context); the handshake completes before SETUP. */
  public TcpClientTransport withSsl(SslContext ssl) {
    return new TcpClientTransport(
        host, port, group, Objects.requireNonNull(ssl, "ssl"), connectTimeoutMillis);
  }

  public TcpClientTransport withConnectTimeoutMillis(int millis) {
    return new TcpClientTransport(host, port, group, ssl, millis);
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
    NettyDuplexTransport[] transport = new NettyDuplexTransport[1];
    // Kept from initChannel, not looked up later: a handshake that fails before the connect's
    // listener runs closes the channel, and a closed channel's pipeline is empty.
    SslHandler[] tls = new SslHandler[1];
    Bootstrap b =
        new Bootstrap()
            .group(loops)
            .channel(EventLoops.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.AUTO_READ, false)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (ssl != null) {
                      tls[0] = ssl.newHandler(ch.alloc(), host, port);
                      ch.pipeline().addLast(tls[0]);
                    }
                    transport[0] = new NettyDuplexTransport(ch);
                    ch.pipeline().addLast(transport[0]);
                  }
                });
    ChannelFuture connect = b.connect(host, port);
    connect.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(f.cause());
            return;
          }
          Channel ch = connect.channel();
          SslHandler sslHandler = tls[0];
          if (sslHandler == null) {
            result.complete(transport[0]);
            return;
          }
          ch.read(); // the handshake needs reads while autoRead is off
          sslHandler
              .handshakeFuture()
              .addListener(
                  h -> {
                    if (h.isSuccess()) {
                      result.complete(transport[0]);
                    } else {
                      ch.close();
                      result.completeExceptionally(h.cause());
                    }
                  });
        });
    return result;
  }

  @Override
  public String toString() {
    return "tcp client " + host + ":" + port + (ssl != null ? " (tls)" : "");
  }
}
