package io.sluice.transport.http2;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.H2Server;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.http2.internal.ServerStreams;
import io.sluice.transport.http2.internal.WebSocketAcceptor;
import java.net.InetSocketAddress;
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
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 256;

  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final String path;
  private final Set<String> allowedOrigins;
  private final int maxConnections;
  private final int maxConcurrentStreams;
  private final int streamWindow;
  private final int maxHeaderList;
  private final Duration prefaceTimeout;
  private final boolean streamMapping;

  private WebSocketOverHttp2ServerTransport(
      InetSocketAddress address,
      EventLoopGroup group,
      SslContext ssl,
      String path,
      Set<String> allowedOrigins,
      int maxConnections,
      int maxConcurrentStreams,
      int streamWindow,
      int maxHeaderList,
      Duration prefaceTimeout,
      boolean streamMapping) {
    this.address = address;
    this.group = group;
    this.ssl = ssl;
    this.path = path;
    this.allowedOrigins = allowedOrigins;
    this.maxConnections = maxConnections;
    this.maxConcurrentStreams = maxConcurrentStreams;
    this.streamWindow = streamWindow;
    this.maxHeaderList = maxHeaderList;
    this.prefaceTimeout = prefaceTimeout;
    this.streamMapping = streamMapping;
  }

  /** Listens on {@code host:port}, path {@code /}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static WebSocketOverHttp2ServerTransport create(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    return new WebSocketOverHttp2ServerTransport(
        new InetSocketAddress(Objects.requireNonNull(host, "host"), port),
        null,
        null,
        "/",
        null,
        Http2ServerTransport.DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_CONCURRENT_STREAMS,
        Http2Options.DEFAULT_STREAM_WINDOW,
        Http2Options.DEFAULT_MAX_HEADER_LIST,
        Duration.ofSeconds(10),
        false);
  }

  /** The {@code :path} served (default {@code /}; a query is not compared); other paths get 404. */
  public WebSocketOverHttp2ServerTransport withPath(String path) {
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, checkPath(path), allowedOrigins, maxConnections, maxConcurrentStreams,
        streamWindow, maxHeaderList, prefaceTimeout, streamMapping);
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
    return new WebSocketOverHttp2ServerTransport(
        address, Objects.requireNonNull(group, "group"), ssl, path, allowedOrigins, maxConnections,
        maxConcurrentStreams, streamWindow, maxHeaderList, prefaceTimeout, streamMapping);
  }

  /**
   * Serves HTTP/2 over TLS: {@code ssl} is a server context that offers ALPN {@code h2} ({@code
   * Tls.server(...).alpn("h2")}); a client that negotiates anything else is closed.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public WebSocketOverHttp2ServerTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.server(...).alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        maxHeaderList, prefaceTimeout, streamMapping);
  }

  /**
   * Accepts CONNECTs only from browser pages of these origins ({@code https://app.example.com};
   * compared ignoring case): others get 403, which stops cross-site WebSocket hijacking. Requests
   * without an {@code origin} header (clients other than browsers) are accepted. Unset (the
   * default), any origin is accepted.
   */
  public WebSocketOverHttp2ServerTransport withAllowedOrigins(Set<String> origins) {
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, lowerCase(origins), maxConnections, maxConcurrentStreams,
        streamWindow, maxHeaderList, prefaceTimeout, streamMapping);
  }

  static Set<String> lowerCase(Set<String> origins) {
    Objects.requireNonNull(origins, "origins");
    return Set.copyOf(origins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList());
  }

  /** Most TCP connections open at once; connections beyond it are closed on accept. */
  public WebSocketOverHttp2ServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        maxHeaderList, prefaceTimeout, streamMapping);
  }

  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS: RSocket connections a TCP connection may carry at once
   * (1..2^31-1); a client opens another TCP connection beyond it.
   */
  public WebSocketOverHttp2ServerTransport withMaxConcurrentStreams(int maxConcurrentStreams) {
    if (maxConcurrentStreams <= 0) {
      throw new IllegalArgumentException("maxConcurrentStreams must be positive, got " + maxConcurrentStreams);
    }
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        maxHeaderList, prefaceTimeout, streamMapping);
  }

  /**
   * The receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes: what a
   * client may send to an RSocket connection that stopped reading.
   */
  public WebSocketOverHttp2ServerTransport withStreamWindowSize(int bytes) {
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams,
        Http2Options.checkWindow(bytes), maxHeaderList, prefaceTimeout, streamMapping);
  }

  /** SETTINGS_MAX_HEADER_LIST_SIZE: the largest header block accepted (1 KiB..1 MiB). */
  public WebSocketOverHttp2ServerTransport withMaxHeaderListSize(int bytes) {
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        Http2Options.checkHeaderList(bytes), prefaceTimeout, streamMapping);
  }

  /** Time from accept (TLS handshake included) to the client's preface; a slower client is closed. */
  public WebSocketOverHttp2ServerTransport withPrefaceTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        maxHeaderList, timeout, streamMapping);
  }

  /**
   * Also serves the HTTP/2 stream mapping (docs/http2-stream-mapping.md, as {@link
   * Http2ServerTransport} does) on the same port: a TCP connection's mapped streams are one
   * RSocket connection, made when its first mapped stream arrives, beside the RSocket connections
   * of its WebSocket streams. Both kinds go to the same {@code onConnection}.
   */
  public WebSocketOverHttp2ServerTransport withStreamMapping(boolean serve) {
    return new WebSocketOverHttp2ServerTransport(
        address, group, ssl, path, allowedOrigins, maxConnections, maxConcurrentStreams, streamWindow,
        maxHeaderList, prefaceTimeout, serve);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    WebSocketAcceptor acceptor = new WebSocketAcceptor(path, allowedOrigins, onConnection);
    H2Handler.Limits limits =
        Http2Options.webSocketLimits(maxConcurrentStreams, maxConcurrentStreams, streamWindow, maxHeaderList);
    // When it stops listening, new CONNECTs are refused and live connections get GOAWAY.
    HttpServerConnections connections = new HttpServerConnections(ch -> true);
    Supplier<ServerStreams> router = () -> new ServerStreams(streamMapping ? onConnection : null, false, acceptor);
    return H2Server.bind(
        "ws-h2" + (ssl != null ? "" : "c"),
        address, group, ssl, maxConnections, prefaceTimeout, connections,
        H2Server.http2Only(ssl, () -> H2Handler.build(true, limits, router.get())),
        () -> {
          acceptor.stop();
          connections.goAway();
        });
  }

  @Override
  public String toString() {
    return "ws-h2" + (ssl != null ? "" : "c") + " server " + address + path;
  }
}
