package io.sluice.transport.websocket;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.Resolvers;
import io.sluice.transport.netty.internal.SnugTlsRecords;
import io.sluice.transport.websocket.internal.ClientUpgradeHandler;
import io.sluice.transport.websocket.internal.UpgradeSettings;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLException;

/**
 * Connects to an RSocket server over WebSocket (RFC 6455), {@code ws://} or {@code wss://}: one
 * RSocket frame per binary message, no length prefix, as rsocket-java's and rsocket-js's
 * WebSocket servers expect. Every frame is masked with a fresh random key, as RFC 6455 requires of
 * clients. Immutable: each {@code with*} returns a new instance.
 *
 * <p>Defaults: connect timeout 10 s; the upgrade must be answered within 5 s of the connect;
 * status line at most 4096 bytes and response headers at most 8192; permessage-deflate not
 * offered. A wss URI uses the JDK's trust store unless {@link #withSsl} gives a context.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class WebSocketClientTransport implements ClientTransport {
  private final String host;
  private final int port;
  private final boolean secure;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int connectTimeoutMillis;
  private final UpgradeSettings settings;

  private WebSocketClientTransport(
      String host,
      int port,
      boolean secure,
      EventLoopGroup group,
      SslContext ssl,
      int connectTimeoutMillis,
      UpgradeSettings settings) {
    this.host = host;
    this.port = port;
    this.secure = secure;
    this.group = group;
    this.ssl = ssl;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.settings = settings;
  }

  /**
   * Connects to {@code uri}: {@code ws://host[:port][/path][?query]} (port 80 by default) or
   * {@code wss://...} (443).
   */
  public static WebSocketClientTransport create(URI uri) {
    Objects.requireNonNull(uri, "uri");
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean secure;
    if (scheme.equals("ws")) {
      secure = false;
    } else if (scheme.equals("wss")) {
      secure = true;
    } else {
      throw new IllegalArgumentException("a WebSocket URI starts with ws:// or wss://, got " + uri);
    }
    String host = uri.getHost();
    if (host == null) {
      throw new IllegalArgumentException("no host in " + uri);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = uri.getPort() == -1 ? (secure ? 443 : 80) : uri.getPort();
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    if (uri.getRawQuery() != null) {
      path = path + "?" + uri.getRawQuery();
    }
    return new WebSocketClientTransport(
        host,
        port,
        secure,
        null,
        null,
        10_000,
        UpgradeSettings.defaults(WebSocketServerTransport.checkPath(path)));
  }

  /** {@code ws://host:port/}. */
  public static WebSocketClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new WebSocketClientTransport(
        Objects.requireNonNull(host, "host"), port, false, null, null, 10_000, UpgradeSettings.defaults("/"));
  }

  /** The request path (default: the URI's, or {@code /}). */
  public WebSocketClientTransport withPath(String path) {
    return with(settings.withPath(WebSocketServerTransport.checkPath(path)));
  }

  public WebSocketClientTransport withEventLoopGroup(EventLoopGroup group) {
    return new WebSocketClientTransport(
        host, port, secure, Objects.requireNonNull(group, "group"), ssl, connectTimeoutMillis, settings);
  }

  /** Speaks wss with {@code ssl} (a client context), whatever the URI's scheme. */
  public WebSocketClientTransport withSsl(SslContext ssl) {
    return new WebSocketClientTransport(
        host, port, true, group, Objects.requireNonNull(ssl, "ssl"), connectTimeoutMillis, settings);
  }

  public WebSocketClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new WebSocketClientTransport(host, port, secure, group, ssl, millis, settings);
  }

  /** Time from connect to the server's 101 answer (default 5 s); the connect fails past it. */
  public WebSocketClientTransport withUpgradeTimeout(Duration timeout) {
    return with(settings.withUpgradeTimeout(WebSocketServerTransport.checkTimeout(timeout)));
  }

  /** Limits of the server's upgrade answer: status line and headers, in bytes (4096, 8192). */
  public WebSocketClientTransport withUpgradeResponseLimits(int maxInitialLineLength, int maxHeaderSize) {
    if (maxInitialLineLength < 64 || maxHeaderSize < 256) {
      throw new IllegalArgumentException("limits too small");
    }
    return with(settings.withLimits(maxInitialLineLength, maxHeaderSize));
  }

  /**
   * Offers permessage-deflate (RFC 7692; default off); used if the server accepts. Inflated
   * messages are bounded by the connection's max frame size.
   */
  public WebSocketClientTransport withCompression(boolean compression) {
    return with(settings.withCompression(compression));
  }

  private WebSocketClientTransport with(UpgradeSettings s) {
    return new WebSocketClientTransport(host, port, secure, group, ssl, connectTimeoutMillis, s);
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
    SslContext context;
    try {
      context = ssl != null ? ssl : secure ? SslContextBuilder.forClient().build() : null;
    } catch (SSLException e) {
      result.completeExceptionally(e);
      return result;
    }
    UpgradeSettings s = settings;
    String hostHeader =
        (host.indexOf(':') >= 0 ? "[" + host + "]" : host)
            + (port == (secure ? 443 : 80) ? "" : ":" + port);
    Bootstrap b =
        new Bootstrap()
            .group(loops)
            .channel(EventLoops.socketChannel(EventLoops.modeOf(loops)))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.AUTO_READ, false)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (context != null) {
                      SnugTlsRecords.add(ch.pipeline(), context.newHandler(ch.alloc(), host, port));
                    }
                    ch.pipeline().addLast(ClientUpgradeHandler.newDecoder(s));
                    ch.pipeline().addLast(new ClientUpgradeHandler(s, hostHeader, result));
                  }
                });
    b.resolver(Resolvers.forGroup(loops)); // netty's DNS resolver, not the JDK's blocking one on the loop
    ChannelFuture connect = b.connect(host, port);
    connect.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(f.cause());
          }
        });
    return result;
  }

  @Override
  public String toString() {
    return (secure ? "wss" : "ws") + " client " + host + ":" + port + settings.path();
  }
}
