package io.sluice.transport.http2.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.Resolvers;
import io.sluice.transport.netty.internal.SnugTlsRecords;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The client side's one way to open an HTTP/2 connection, for every HTTP/2 client here (the
 * stream mapping's {@code Http2ClientTransport}, WebSocket over HTTP/2's {@link
 * WebSocketConnector}, gRPC's {@code GrpcClientTransport}): the bootstrap on the given group (or
 * the shared one) with netty's asynchronous resolver, TCP_NODELAY, TLS with the server's name (SNI
 * and host name checks) and ALPN {@code h2} through {@link AlpnH2}, or h2c with prior knowledge,
 * and one connect deadline over TCP and the TLS handshake together.
 *
 * <p>{@link Outcome#onHttp2} or {@link Outcome#onFailure} is called once, on the connection's
 * event loop: h2c once TCP connected (before any byte is read), TLS once ALPN chose {@code h2}.
 */
public final class H2Connector {
  private H2Connector() {}

  /** Where and how to connect. */
  public record Target(
      EventLoopGroup group, String host, int port, SslContext ssl, int connectTimeoutMillis, H2Handler.Limits limits) {
    /** {@code :scheme} of requests on the connection. */
    public AsciiString scheme() {
      return AsciiString.of(ssl != null ? "https" : "http");
    }

    /** {@code :authority} of requests on the connection: host:port, an IPv6 host in brackets. */
    public AsciiString authority() {
      return AsciiString.of(host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port);
    }
  }

  /** What the connection became. */
  public interface Outcome extends AlpnH2.Outcome {
    /** TCP connected (TLS, if any, still to come); the channel's close may be watched from here. */
    default void onConnected(Channel channel) {}

    /** The connection speaks HTTP/2 and {@code handler} is in its pipeline. */
    @Override
    void onHttp2(H2Handler handler);

    /** It could not be opened (connect, TLS, ALPN or the deadline); a channel opened is closing. */
    @Override
    void onFailure(Throwable cause);
  }

  /**
   * Opens one connection to {@code target}; {@code peer} names it in error messages (for example
   * {@code "the server at host:443"}).
   */
  public static void connect(Target target, String peer, Outcome outcome) {
    EventLoopGroup loops = target.group() != null ? target.group() : EventLoops.shared();
    CompletableFuture<Void> told = new CompletableFuture<>();
    Outcome once = once(outcome, told);
    Bootstrap b =
        new Bootstrap()
            .group(loops)
            .channel(EventLoops.socketChannel(EventLoops.modeOf(loops)))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, target.connectTimeoutMillis())
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (target.ssl() == null) {
                      H2Handler h = H2Handler.build(false, target.limits(), null);
                      ch.pipeline().addLast(h);
                      // Told from the pipeline when the connection becomes active, before its
                      // first read: a listener on the connect future may run after the server's
                      // SETTINGS were read (it is added by the connecting thread), and a caller
                      // that registers for SETTINGS in onHttp2 would miss them.
                      ch.pipeline()
                          .addLast(
                              new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                  ctx.pipeline().remove(this);
                                  outcome.onConnected(ch);
                                  once.onHttp2(h);
                                  ctx.fireChannelActive();
                                }
                              });
                      return;
                    }
                    // HTTP/2 goes in behind the handshake from the pipeline, never from a listener
                    // the connecting thread adds: see AlpnH2.
                    SnugTlsRecords.add(ch.pipeline(), target.ssl().newHandler(ch.alloc(), target.host(), target.port()));
                    ch.pipeline()
                        .addLast(new AlpnH2(() -> H2Handler.build(false, target.limits(), null), peer, once));
                  }
                });
    long start = System.nanoTime();
    b.resolver(Resolvers.forGroup(loops)); // netty's DNS resolver, not the JDK's blocking one on the loop
    b.connect(InetSocketAddress.createUnresolved(target.host(), target.port()))
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                once.onFailure(f.cause());
                return;
              }
              Channel ch = f.channel();
              if (target.ssl() != null) {
                outcome.onConnected(ch);
                AlpnH2.failAtConnectDeadline(
                    ch, start, target.connectTimeoutMillis(), peer, once::onFailure, told);
                return;
              }
              // h2c: told from the pipeline at channelActive (above), unless it closed first.
              if (!ch.isActive() && !told.isDone()) {
                once.onFailure(new IOException("the connection to " + peer + " closed at once"));
              }
            });
  }

  /** {@code outcome}, told at most once; {@code told} completes when it is. */
  private static Outcome once(Outcome outcome, CompletableFuture<Void> told) {
    return new Outcome() {
      @Override
      public void onHttp2(H2Handler handler) {
        if (told.complete(null)) {
          outcome.onHttp2(handler);
        }
      }

      @Override
      public void onFailure(Throwable cause) {
        if (told.complete(null)) {
          outcome.onFailure(cause);
        }
      }
    };
  }
}
