package io.sluice.transport.websocket;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.ServerChannels;
import io.sluice.transport.websocket.internal.ServerUpgradeHandler;
import io.sluice.transport.websocket.internal.UpgradeSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Serves RSocket over WebSocket (RFC 6455): one RSocket frame per binary message, no length
 * prefix, as rsocket-java's and rsocket-js's WebSocket transports speak it; optionally over TLS
 * (wss). Immutable: each {@code with*} returns a new instance.
 *
 * <p>Defaults: path {@code /}; at most {@value #DEFAULT_MAX_CONNECTIONS} connections; request
 * line at most 4096 bytes and headers at most 8192 (431 past them); the upgrade must be complete
 * within 5 s of the connect (else the connection is closed without an answer); any Origin is
 * accepted; permessage-deflate off. A wrong path is answered 404, a request that is not a
 * WebSocket upgrade 426 or 400 (or it goes to {@link #withHttpFallback}'s handler), an Origin
 * outside {@link #withAllowedOrigins} 403.
 *
 * <p>After the upgrade the limits of the connection ({@link
 * io.sluice.core.ConnectionOptions#maxFrameSize()} and the others) apply per message: a larger
 * message, reassembled or not, closes with 1009 (checked from the frame header, before buffering),
 * a text message with 1003, a protocol violation (an unmasked client frame, say) with 1002.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class WebSocketServerTransport implements ServerTransport {
  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int maxConnections;
  private final UpgradeSettings settings;

  private WebSocketServerTransport(
      InetSocketAddress address,
      EventLoopGroup group,
      SslContext ssl,
      int maxConnections,
      UpgradeSettings settings) {
    this.address = address;
    this.group = group;
    this.ssl = ssl;
    this.maxConnections = maxConnections;
    this.settings = settings;
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static WebSocketServerTransport create(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    return new WebSocketServerTransport(
        new InetSocketAddress(Objects.requireNonNull(host, "host"), port),
        null,
        null,
        DEFAULT_MAX_CONNECTIONS,
        UpgradeSettings.defaults("/"));
  }

  /** The request path served (default {@code /}); other paths are answered 404. */
  public WebSocketServerTransport withPath(String path) {
    return with(settings.withPath(checkPath(path)));
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public WebSocketServerTransport withEventLoopGroup(EventLoopGroup group) {
    return new WebSocketServerTransport(
        address, Objects.requireNonNull(group, "group"), ssl, maxConnections, settings);
  }

  /** Serves wss: TLS with {@code ssl} (a server context) before the HTTP upgrade. */
  public WebSocketServerTransport withSsl(SslContext ssl) {
    return new WebSocketServerTransport(
        address, group, Objects.requireNonNull(ssl, "ssl"), maxConnections, settings);
  }

  /** Most connections open at once; connections beyond it are closed on accept, without a reply. */
  public WebSocketServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new WebSocketServerTransport(address, group, ssl, maxConnections, settings);
  }

  /**
   * Accepts upgrades only from browser pages of these origins ({@code https://app.example.com},
   * scheme, host and port as browsers send them; compared ignoring case): others get 403, which
   * stops cross-site WebSocket hijacking. Requests without an Origin header (clients other than
   * browsers) are accepted. Unset (the default), any origin is accepted.
   */
  public WebSocketServerTransport withAllowedOrigins(Set<String> origins) {
    Objects.requireNonNull(origins, "origins");
    Set<String> lower =
        Set.copyOf(origins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList());
    return with(settings.withAllowedOrigins(lower));
  }

  /**
   * Limits of the upgrade request: its request line and its headers, in bytes (defaults 4096 and
   * 8192). Past them the request is answered 414 or 431 and the connection closed.
   */
  public WebSocketServerTransport withUpgradeRequestLimits(int maxInitialLineLength, int maxHeaderSize) {
    if (maxInitialLineLength < 64 || maxHeaderSize < 256) {
      throw new IllegalArgumentException(
          "limits too small: request line " + maxInitialLineLength + " (at least 64), headers "
              + maxHeaderSize + " (at least 256)");
    }
    return with(settings.withLimits(maxInitialLineLength, maxHeaderSize));
  }

  /**
   * Time from accept (TLS handshake included) to a complete upgrade request (default 5 s); a
   * slower client is disconnected without an answer.
   */
  public WebSocketServerTransport withUpgradeTimeout(Duration timeout) {
    return with(settings.withUpgradeTimeout(checkTimeout(timeout)));
  }

  /**
   * Accepts permessage-deflate (RFC 7692) when the client offers it (default off: compression
   * costs CPU and about 300 KiB of zlib state per connection). Both sides then compress each
   * message on its own (no context takeover); inflated messages are bounded by the connection's
   * max frame size (1009 past it), so a small compressed message cannot inflate without limit.
   */
  public WebSocketServerTransport withCompression(boolean compression) {
    return with(settings.withCompression(compression));
  }

  /**
   * Serves plain HTTP on the same port (a page, say, whose script then opens the WebSocket):
   * a connection whose first request has no {@code Upgrade: websocket} header goes to {@code
   * handler} instead of being answered 426. The transport then puts netty's {@code
   * HttpResponseEncoder} and {@code handler} at the end of the connection's pipeline, after its
   * {@code HttpRequestDecoder} (the request line and header limits still apply), passes the
   * request on, and turns reads automatic; the handler receives that request and the rest of the
   * connection as {@code HttpRequest} and {@code HttpContent} messages, answers with {@code
   * HttpResponse} objects, and owns the connection from then on, idle timeouts included (the
   * upgrade deadline no longer applies). WebSocket upgrades (on any path) keep their handling.
   *
   * @param handler added to every such connection, so {@link ChannelHandler.Sharable} (a {@code
   *     ChannelInitializer} that adds per-connection handlers is)
   */
  public WebSocketServerTransport withHttpFallback(ChannelHandler handler) {
    Objects.requireNonNull(handler, "handler");
    if (!handler.getClass().isAnnotationPresent(ChannelHandler.Sharable.class)) {
      throw new IllegalArgumentException(
          "the HTTP fallback handler must be @Sharable (e.g. a ChannelInitializer): " + handler);
    }
    return with(settings.withHttpFallback(handler));
  }

  private WebSocketServerTransport with(UpgradeSettings s) {
    return new WebSocketServerTransport(address, group, ssl, maxConnections, s);
  }

  static String checkPath(String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7F)) {
      throw new IllegalArgumentException("path must start with / and hold visible ASCII only: " + path);
    }
    return path;
  }

  static Duration checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return timeout;
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    EventLoopGroup loops = group != null ? group : EventLoops.shared();
    UpgradeSettings s = settings;
    String scheme = ssl != null ? "wss" : "ws";
    return ServerChannels.bind(
        a -> scheme + " server " + a + s.path(),
        loops,
        EventLoops.serverSocketChannel(EventLoops.modeOf(loops)),
        address,
        b ->
            b.option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false),
        ssl,
        maxConnections,
        ch -> {
          ch.pipeline().addLast(ServerUpgradeHandler.newDecoder(s));
          ch.pipeline().addLast(new ServerUpgradeHandler(s, onConnection));
        },
        new ServerChannels.Hooks() {});
  }

  @Override
  public String toString() {
    return (ssl != null ? "wss" : "ws") + " server " + address + settings.path();
  }
}
