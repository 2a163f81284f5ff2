package io.sluice.transport.http2;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.H2Server;
import io.sluice.transport.http2.internal.H2ServerSettings;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.http2.internal.ServerStreams;
import io.sluice.transport.http2.internal.WebSocketAcceptor;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Serves RSocket over WebSocket over HTTP/2 (RFC 8441): each extended CONNECT stream ({@code
 * :method CONNECT}, {@code :protocol websocket}, {@code :path} the served path) is one RSocket
 * connection, with its own SETUP, framed exactly as on the WebSocket transport (one RSocket frame
 * per binary WebSocket message in the stream's DATA). One TCP connection carries as many RSocket
 * connections as its client opens, up to {@link #withMaxConcurrentStreams}; each gets the server's
 * acceptor on its own, and closing one ends its stream only. The server's SETTINGS enable the
 * connect protocol (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1). h2c with prior knowledge, or TLS with
 * ALPN {@code h2} ({@link #withSsl}). Immutable: each {@code with*} returns a new instance.
 *
 * <p>A CONNECT that is not one is answered with headers only: 400 (no {@code :protocol}, or no
 * {@code :scheme}, {@code :path} or {@code :authority}; a {@code sec-websocket-version} other than
 * 13), 501 (a {@code :protocol} other than {@code websocket}), 404 (another path), 403 (an {@code
 * origin} outside {@link #withAllowedOrigins}). Requests of the HTTP/2 stream mapping get 404,
 * unless {@link #withStreamMapping} serves it on the same port.
 *
 * <p><b>Flow control.</b> Each stream has its own window ({@link #withStreamWindowSize}); an RSocket
 * connection that stops reading (its engine paused) holds back its stream's window updates only,
 * and the connection's window is a stream window per allowed stream, so the other RSocket
 * connections of the TCP connection go on. Outbound bytes are counted per stream for the engine's
 * writability.
 *
 * <p>Defaults, all finite: {@value Http2ServerTransport#DEFAULT_MAX_CONNECTIONS} TCP connections;
 * {@value #DEFAULT_MAX_CONCURRENT_STREAMS} streams (RSocket connections) per TCP connection; a 1 MiB
 * stream window; 8 KiB of headers per request; the client's preface within 10 s of the connect
 * (TLS handshake included). netty's HTTP/2 protections stay on (see {@link Http2ServerTransport}).
 * When the server stops listening, its live TCP connections get GOAWAY: their RSocket connections
 * go on, new CONNECTs go elsewhere.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection.
 */
public final class WebSocketOverHttp2ServerTransport implements ServerTransport {
  /** RSocket connections (streams) per TCP connection unless {@link #withMaxConcurrentStreams} says otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = H2ServerSettings.DEFAULT_MAX_CONCURRENT_STREAMS;

  private final H2ServerSettings settings;
  private final String path;
  private final Set<String> allowedOrigins;
  private final boolean streamMapping;

  private WebSocketOverHttp2ServerTransport(
      H2ServerSettings settings, String path, Set<String> allowedOrigins, boolean streamMapping) {
    this.settings = settings;
    this.path = path;
    this.allowedOrigins = allowedOrigins;
    this.streamMapping = streamMapping;
  }

  /** Listens on {@code host:port}, path {@code /}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static WebSocketOverHttp2ServerTransport create(String host, int port) {
    return new WebSocketOverHttp2ServerTransport(H2ServerSettings.of(host, port), "/", null, false);
  }

  private WebSocketOverHttp2ServerTransport with(H2ServerSettings settings) {
    return new WebSocketOverHttp2ServerTransport(settings, path, allowedOrigins, streamMapping);
  }

  /** The {@code :path} served (default {@code /}; a query is not compared); other paths get 404. */
  public WebSocketOverHttp2ServerTransport withPath(String path) {
    return new WebSocketOverHttp2ServerTransport(settings, checkPath(path), allowedOrigins, streamMapping);
  }

  static String checkPath(String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with /, got " + path);
    }
    return path;
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public WebSocketOverHttp2ServerTransport withEventLoopGroup(EventLoopGroup group) {
    return with(settings.withEventLoopGroup(group));
  }

  /**
   * Serves HTTP/2 over TLS: {@code ssl} is a server context that offers ALPN {@code h2} ({@code
   * Tls.server(...).alpn("h2")}); a client that negotiates anything else is closed.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public WebSocketOverHttp2ServerTransport withSsl(SslContext ssl) {
    return with(settings.withSsl(ssl));
  }

  /**
   * Accepts CONNECTs only from browser pages of these origins ({@code https://app.example.com};
   * compared ignoring case): others get 403, which stops cross-site WebSocket hijacking. Requests
   * without an {@code origin} header (clients other than browsers) are accepted. Unset (the
   * default), any origin is accepted.
   */
  public WebSocketOverHttp2ServerTransport withAllowedOrigins(Set<String> origins) {
    return new WebSocketOverHttp2ServerTransport(settings, path, lowerCase(origins), streamMapping);
  }

  static Set<String> lowerCase(Set<String> origins) {
    Objects.requireNonNull(origins, "origins");
    return Set.copyOf(origins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList());
  }

  /** Most TCP connections open at once; connections beyond it are closed on accept. */
  public WebSocketOverHttp2ServerTransport withMaxConnections(int maxConnections) {
    return with(settings.withMaxConnections(maxConnections));
  }

  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS: RSocket connections a TCP connection may carry at once
   * (1..2^31-1); a client opens another TCP connection beyond it.
   */
  public WebSocketOverHttp2ServerTransport withMaxConcurrentStreams(int maxConcurrentStreams) {
    return with(settings.withMaxConcurrentStreams(maxConcurrentStreams));
  }

  /**
   * The receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes: what a
   * client may send to an RSocket connection that stopped reading.
   */
  public WebSocketOverHttp2ServerTransport withStreamWindowSize(int bytes) {
    return with(settings.withStreamWindowSize(bytes));
  }

  /** SETTINGS_MAX_HEADER_LIST_SIZE: the largest header block accepted (1 KiB..1 MiB). */
  public WebSocketOverHttp2ServerTransport withMaxHeaderListSize(int bytes) {
    return with(settings.withMaxHeaderListSize(bytes));
  }

  /** Time from accept (TLS handshake included) to the client's preface; a slower client is closed. */
  public WebSocketOverHttp2ServerTransport withPrefaceTimeout(Duration timeout) {
    return with(settings.withPrefaceTimeout(timeout));
  }

  /**
   * At most {@code resets} early resets per {@code window} on one TCP connection (default {@value
   * Http2ServerTransport#DEFAULT_MAX_EARLY_RESETS} per 10 s, as {@link
   * Http2ServerTransport#withMaxEarlyResets}): streams (here CONNECTs) the client resets before an
   * answer could reach it, the pattern of rapid reset (CVE-2023-44487). One more closes the
   * connection with GOAWAY(ENHANCE_YOUR_CALM).
   *
   * @throws IllegalArgumentException if {@code resets} is below 1 or {@code window} is not 1 ms..1 h
   */
  public WebSocketOverHttp2ServerTransport withMaxEarlyResets(int resets, Duration window) {
    return with(settings.withMaxEarlyResets(resets, window));
  }

  /**
   * Also serves the HTTP/2 stream mapping (docs/http2-stream-mapping.md, as {@link
   * Http2ServerTransport} does) on the same port: a TCP connection's mapped streams are one
   * RSocket connection, made when its first mapped stream arrives, beside the RSocket connections
   * of its WebSocket streams. Both kinds go to the same {@code onConnection}.
   */
  public WebSocketOverHttp2ServerTransport withStreamMapping(boolean serve) {
    return new WebSocketOverHttp2ServerTransport(settings, path, allowedOrigins, serve);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    WebSocketAcceptor acceptor = new WebSocketAcceptor(path, allowedOrigins, onConnection);
    int streams = settings.maxConcurrentStreams();
    H2Handler.Limits limits =
        settings.withEarlyResets(
            Http2Options.webSocketLimits(streams, streams, settings.streamWindow(), settings.maxHeaderList()));
    // When it stops listening, new CONNECTs are refused and live connections get GOAWAY.
    HttpServerConnections connections = new HttpServerConnections(ch -> true);
    Supplier<ServerStreams> router = () -> new ServerStreams(streamMapping ? onConnection : null, false, acceptor);
    return settings.bind(
        scheme(),
        connections,
        H2Server.http2Only(settings.ssl(), () -> H2Handler.build(true, limits, router.get())),
        () -> {
          acceptor.stop();
          connections.goAway();
        });
  }

  private String scheme() {
    return "ws-h2" + (settings.ssl() != null ? "" : "c");
  }

  @Override
  public String toString() {
    return scheme() + " server " + settings.address() + path;
  }
}
