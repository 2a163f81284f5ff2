package io.sluice.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.AddressResolverGroup;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import io.sluice.transport.netty.internal.SnugTlsRecords;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The connecting half the stream-socket clients (TCP, unix domain sockets) share: one {@link
 * NettyDuplexTransport} per channel, autoRead off until the engine starts it, and, with TLS, a
 * finished handshake before the connection is handed out.
 */
final class NettyClients {
  private NettyClients() {}

  /**
   * Connects a {@code channelType} channel (which must match {@code loops}' engine) to {@code
   * remote}. {@code ssl} makes the channel's TLS handler, or is null; {@code bootstrap} sets the
   * options of its kind of socket. An unresolved {@code remote} is resolved with {@code resolver}
   * (null: for addresses that need none, e.g. unix domain sockets).
   */
  static CompletableFuture<DuplexTransport> connect(
      EventLoopGroup loops,
      Class<? extends Channel> channelType,
      SocketAddress remote,
      int connectTimeoutMillis,
      Consumer<Bootstrap> bootstrap,
      Function<Channel, SslHandler> ssl,
      AddressResolverGroup<?> resolver) {
    CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
    NettyDuplexTransport[] transport = new NettyDuplexTransport[1];
    SslHandler[] tls = new SslHandler[1];
    Bootstrap b =
        new Bootstrap()
            .group(loops)
            .channel(channelType)
            .option(ChannelOption.AUTO_READ, false)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (ssl != null) {
                      tls[0] = ssl.apply(ch);
                      SnugTlsRecords.add(ch.pipeline(), tls[0]);
                    }
                    transport[0] = new NettyDuplexTransport(ch);
                    ch.pipeline().addLast(transport[0]);
                  }
                });
    if (resolver != null) {
      b.resolver(resolver);
    }
    bootstrap.accept(b);
    ChannelFuture connect = b.connect(remote);
    connect.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(f.cause());
            return;
          }
          Channel ch = connect.channel();
          // Held since initChannel, not looked up: a channel closed meanwhile has an empty pipeline,
          // and a lookup would hand out a connection that never did its handshake.
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
}
