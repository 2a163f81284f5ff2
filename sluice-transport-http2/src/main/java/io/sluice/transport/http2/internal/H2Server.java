package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ServerTransport.Bound;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.ServerChannels;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The listening side every dedicated HTTP/2 server here shares (the stream mapping's, WebSocket
 * over HTTP/2's and gRPC's; the one-port server detects first and then uses the same handler): the
 * bind with its socket options, TLS (which {@link ServerChannels} puts first), the connection cap,
 * the server's {@link HttpServerConnections} (for its GOAWAY and its stop), and one preface
 * deadline from accept, TLS handshake included.
 */
public final class H2Server {
  private H2Server() {}

  /**
   * Binds a server. Each accepted connection is tracked by {@code connections}, gets its protocol
   * handlers from {@code protocols}, and is closed if its client has not sent the HTTP/2 preface
   * (or the head of its first HTTP/1.1 request) within {@code prefaceTimeout} of the accept;
   * {@code afterClose} (null: nothing) runs once the listener has closed.
   */
  public static CompletableFuture<Bound> bind(
      String scheme,
      InetSocketAddress address,
      EventLoopGroup group,
      SslContext ssl,
      int maxConnections,
      Duration prefaceTimeout,
      HttpServerConnections connections,
      Consumer<Channel> protocols,
      Runnable afterClose) {
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    long prefaceMillis = prefaceTimeout.toMillis();
    return ServerChannels.bind(
        a -> scheme + " server " + a,
        loops,
        EventLoops.serverSocketChannel(EventLoops.modeOf(loops)),
        address,
        b ->
            b.option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, true),
        ssl,
        maxConnections,
        ch -> {
          connections.add(ch);
          protocols.accept(ch);
          closeWithoutPreface(ch, prefaceMillis);
        },
        new ServerChannels.Hooks() {
          @Override
          public void afterClose() {
            if (afterClose != null) {
              afterClose.run();
            }
          }
        });
  }

  /**
   * The protocol handlers of an HTTP/2-only server: the handler {@code handler} makes, at once
   * (h2c, prior knowledge) or behind TLS once ALPN chose {@code h2} ({@code ssl} non-null).
   */
  public static Consumer<Channel> http2Only(SslContext ssl, Supplier<H2Handler> handler) {
    if (ssl == null) {
      return ch -> ch.pipeline().addLast(handler.get());
    }
    return ch -> ch.pipeline().addLast(new AlpnH2(handler, "the client", null));
  }

  /**
   * Closes {@code ch} if, {@code millis} after its accept, it has not sent its HTTP/2 preface or
   * the head of its first HTTP/1.1 request.
   */
  public static void closeWithoutPreface(Channel ch, long millis) {
    ch.eventLoop()
        .schedule(
            () -> {
              HttpServerConnections.Http1Connection h1 = HttpServerConnections.http1(ch);
              if (h1 != null) {
                if (h1.awaitingFirstRequest()) {
                  ch.close(); // after that, HTTP/1.1 keeps its own time between requests
                }
                return;
              }
              H2Handler h = ch.pipeline().get(H2Handler.class);
              if (h == null || !h.decoder().prefaceReceived()) {
                ch.close();
              }
            },
            millis,
            TimeUnit.MILLISECONDS);
  }
}
