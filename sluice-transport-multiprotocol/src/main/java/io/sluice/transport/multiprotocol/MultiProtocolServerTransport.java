package io.sluice.transport.multiprotocol;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.HttpRoutes;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.multiprotocol.internal.Routes;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.ServerChannels;
import io.sluice.transport.websocket.internal.UpgradeSettings;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Serves every Sluice transport on one port, telling each connection's protocol from its first
 * bytes:
 *
 * <ul>
 *   <li><b>RSocket over TCP</b> (a SETUP or RESUME frame first): as {@code TcpServerTransport}
 *       serves it;
 *   <li><b>TLS</b> (a ClientHello first; only with {@link #withSsl}), then by ALPN: {@code h2} is
 *       HTTP/2, {@code http/1.1} is HTTP/1.1, and with neither the decrypted first bytes decide
 *       again: RSocket over TLS, HTTP/1.1 (wss) or HTTP/2 with prior knowledge;
 *   <li><b>HTTP/1.1</b> (a request line first): a WebSocket upgrade on {@link #withWebSocketPath}
 *       (default {@value #DEFAULT_WEBSOCKET_PATH}), as {@code WebSocketServerTransport} serves it;
 *       a request for another path is answered 404, one that is not an upgrade 426;
 *   <li><b>HTTP/2 with prior knowledge</b> (the client preface first): as {@code
 *       Http2ServerTransport} serves it, each request stream routed by its headers; the stream
 *       mapping's RSocket connection is made when the connection's first mapped stream arrives;
 *   <li><b>Other HTTP protocols</b> (only with {@link #withHttpRoutes}), such as gRPC, gRPC-Web
 *       and HTTP/JSON ({@code GrpcServices.of(registry).httpRoutes()}, from
 *       sluice-transport-grpc, which this module does not depend on): the HTTP/2 requests the
 *       routes claim (by content type), beside the RSocket streams of the same connection, and the
 *       HTTP/1.1 connections whose first request they serve.
 * </ul>
 *
 * <p><b>Detection is bounded.</b> It looks at no more than the first {@value
 * io.sluice.transport.multiprotocol.internal.FirstBytes#MAX_BYTES} bytes (the HTTP/2 preface; the
 * others need 8 or fewer), asking for one read at a time until they decide; what a read brought
 * beyond them goes to the chosen protocol. First bytes that fit none of the protocols close
 * the connection at once, without an answer. A connection that has not shown its protocol within
 * {@link #withDetectionTimeout} of its accept (default 10 s; a TLS handshake and, for HTTP/2, the
 * client's first SETTINGS count in it) is closed: a peer that dribbles its first bytes holds one
 * connection slot for that long at most. From then on each protocol's own limits apply (the
 * engine's setup timeout, the WebSocket upgrade's request limits and its timeout, which is the
 * detection timeout again, HTTP/2's settings).
 *
 * <p>Immutable: each {@code with*} returns a new instance. At most {@value
 * #DEFAULT_MAX_CONNECTIONS} connections are open at once unless {@link #withMaxConnections} says
 * otherwise, whatever they speak.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class MultiProtocolServerTransport implements ServerTransport {
  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
  /** The WebSocket upgrade's path unless {@link #withWebSocketPath} says otherwise. */
  public static final String DEFAULT_WEBSOCKET_PATH = "/rsocket";
  /** From accept to a known protocol unless {@link #withDetectionTimeout} says otherwise. */
  public static final Duration DEFAULT_DETECTION_TIMEOUT = Duration.ofSeconds(10);
  /** See {@link #withWriteStallTimeout}. */
  public static final Duration DEFAULT_WRITE_STALL_TIMEOUT = Duration.ofSeconds(30);
  /** HTTP/2 streams open at once per connection unless {@link #withMaxConcurrentStreams} says otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 256;

  // The HTTP/2 defaults and bounds are Http2ServerTransport's.

  /** The settings; a copy is changed by each {@code with*}, never the instance's own. */
  private static final class Settings {
    InetSocketAddress address;
    EventLoopGroup group;
    SslContext ssl;
    int maxConnections = DEFAULT_MAX_CONNECTIONS;
    String webSocketPath = DEFAULT_WEBSOCKET_PATH;
    Duration detectionTimeout = DEFAULT_DETECTION_TIMEOUT;
    int maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS;
    int streamWindow = Http2Options.DEFAULT_STREAM_WINDOW;
    int maxHeaderList = Http2Options.DEFAULT_MAX_HEADER_LIST;
    HttpRoutes routes;
    Duration writeStallTimeout = DEFAULT_WRITE_STALL_TIMEOUT;

    Settings copy() {
      Settings s = new Settings();
      s.address = address;
      s.group = group;
      s.ssl = ssl;
      s.maxConnections = maxConnections;
      s.webSocketPath = webSocketPath;
      s.detectionTimeout = detectionTimeout;
      s.maxConcurrentStreams = maxConcurrentStreams;
      s.streamWindow = streamWindow;
      s.maxHeaderList = maxHeaderList;
      s.routes = routes;
      s.writeStallTimeout = writeStallTimeout;
      return s;
    }
  }

  private final Settings settings;

  private MultiProtocolServerTransport(Settings settings) {
    this.settings = settings;
  }

  private MultiProtocolServerTransport with(Consumer<Settings> change) {
    Settings s = settings.copy();
    change.accept(s);
    return new MultiProtocolServerTransport(s);
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static MultiProtocolServerTransport create(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    Settings s = new Settings();
    s.address = new InetSocketAddress(Objects.requireNonNull(host, "host"), port);
    return new MultiProtocolServerTransport(s);
  }

  /**
   * Serves TLS too, with {@code ssl} (a server context). For HTTP/2 over TLS it must offer ALPN
   * {@code h2}, and should offer {@code http/1.1} for browsers' wss: build it with {@code
   * Tls.server(...).alpn("h2", "http/1.1")}. Clients that ask for neither (RSocket over TLS,
   * WebSocket clients without ALPN) are served by their decrypted first bytes.
   *
   * @throws IllegalArgumentException if {@code ssl} is a client context
   */
  public MultiProtocolServerTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.isServer()) {
      throw new IllegalArgumentException("a server TLS context is needed, got a client one");
    }
    return with(s -> s.ssl = ssl);
  }

  /** The path WebSocket upgrades are served on (default {@value #DEFAULT_WEBSOCKET_PATH}). */
  public MultiProtocolServerTransport withWebSocketPath(String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7F)) {
      throw new IllegalArgumentException("path must start with / and hold visible ASCII only: " + path);
    }
    return with(s -> s.webSocketPath = path);
  }

  /**
   * Time from accept to a known protocol (default 10 s), TLS handshake included; a connection
   * still undecided then is closed without an answer.
   */
  public MultiProtocolServerTransport withDetectionTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return with(s -> s.detectionTimeout = timeout);
  }

  /** Most connections open at once; connections beyond it are closed on accept, without a reply. */
  public MultiProtocolServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return with(s -> s.maxConnections = maxConnections);
  }

  /**
   * Uses {@code group} for the listener and the accepted connections instead of the shared
   * group; its engine (NIO, epoll or io_uring) decides the channel type.
   */
  public MultiProtocolServerTransport withEventLoopGroup(EventLoopGroup group) {
    Objects.requireNonNull(group, "group");
    return with(s -> s.group = group);
  }

  /** HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS, streams a client may have open at once. */
  public MultiProtocolServerTransport withMaxConcurrentStreams(int maxConcurrentStreams) {
    if (maxConcurrentStreams <= 0) {
      throw new IllegalArgumentException("maxConcurrentStreams must be positive, got " + maxConcurrentStreams);
    }
    return with(s -> s.maxConcurrentStreams = maxConcurrentStreams);
  }

  /**
   * HTTP/2: the receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes
   * (default 1 MiB); the connection's window is one of them per stream allowed ({@link
   * #withMaxConcurrentStreams}; at least 4 MiB, at most 2^31-1 bytes), as on WebSocket over HTTP/2's
   * own server, so that its RSocket connections that stopped reading never stall the others.
   */
  public MultiProtocolServerTransport withStreamWindowSize(int bytes) {
    Http2Options.checkWindow(bytes);
    return with(s -> s.streamWindow = bytes);
  }

  /** HTTP/2: SETTINGS_MAX_HEADER_LIST_SIZE, the largest header block accepted (1 KiB..1 MiB). */
  public MultiProtocolServerTransport withMaxHeaderListSize(int bytes) {
    Http2Options.checkHeaderList(bytes);
    return with(s -> s.maxHeaderList = bytes);
  }

  /**
   * Serves the requests of another HTTP protocol too: on HTTP/2 connections (h2c with prior
   * knowledge, or TLS with ALPN {@code h2}) the requests {@code routes} claim, asked before the
   * stream mapping; on HTTP/1.1 the connections whose first request they serve. gRPC, gRPC-Web
   * and HTTP/JSON: {@code withHttpRoutes(GrpcServices.of(registry).httpRoutes())} (see
   * docs/guide/grpc.md). The connections stay this server's: its HTTP/2 settings and limits, and
   * its {@link Bound#stop} drains them.
   */
  public MultiProtocolServerTransport withHttpRoutes(HttpRoutes routes) {
    Objects.requireNonNull(routes, "routes");
    return with(s -> s.routes = routes);
  }

  /**
   * With {@link #withHttpRoutes}: how long the peer of an HTTP/2 connection, or of an HTTP/1.1
   * connection the routes serve, may read nothing while output is queued for it before the
   * connection is closed (default 30 s): a gRPC peer could otherwise flood SETTINGS or PINGs,
   * never read the ACKs, and keep its connection slot for as long as it likes. RSocket over TCP
   * and over WebSocket keep only their engine's own ({@code ConnectionOptions.writeStallTimeout}).
   */
  public MultiProtocolServerTransport withWriteStallTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return with(s -> s.writeStallTimeout = timeout);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    Settings s = settings;
    EventLoopGroup loops = s.group != null ? s.group : EventLoops.shared();
    // WebSocket over HTTP/2 is served too: the connect protocol is on, and the connection window
    // is a stream window per stream allowed, as on WebSocketOverHttp2ServerTransport, so that
    // RSocket connections that stopped reading (each holding its stream's window) never close it
    // on the other streams of their TCP connection.
    H2Handler.Limits limits =
        Http2Options.webSocketLimits(s.maxConcurrentStreams, s.maxConcurrentStreams, s.streamWindow, s.maxHeaderList);
    UpgradeSettings webSocket =
        UpgradeSettings.defaults(s.webSocketPath).withUpgradeTimeout(s.detectionTimeout);
    Routes routes =
        new Routes(
            s.ssl, webSocket, limits, s.detectionTimeout, onConnection, s.routes);
    routes.writeStallTimeout(s.writeStallTimeout);
    return ServerChannels.bind(
        a -> description(a, s),
        loops,
        EventLoops.serverSocketChannel(EventLoops.modeOf(loops)),
        s.address,
        b ->
            b.option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false),
        null, // TLS is one of the protocols detected, not a layer under all of them
        s.maxConnections,
        routes::init,
        new ServerChannels.Hooks() {})
        .thenApply(b -> new Listening(b, routes));
  }

  /**
   * The bound server: closing it stops the listener and sends GOAWAY on its HTTP/2 connections
   * (their clients open no more streams there; WebSocket over HTTP/2 CONNECTs are refused);
   * {@link #stop} also ends what the port serves itself, without the engine: gRPC, gRPC-Web and
   * HTTP/JSON calls are let finish, and their connections closed then or after the grace.
   */
  private static final class Listening implements Bound {
    private final Bound listener;
    private final Routes routes;
    private final AtomicReference<CompletableFuture<Void>> stopped = new AtomicReference<>();

    Listening(Bound listener, Routes routes) {
      this.listener = listener;
      this.routes = routes;
    }

    @Override
    public SocketAddress address() {
      return listener.address();
    }

    @Override
    public void close() {
      listener.close();
      routes.stopAccepting();
    }

    @Override
    public CompletableFuture<Void> stop(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      CompletableFuture<Void> f = new CompletableFuture<>();
      if (!stopped.compareAndSet(null, f)) {
        return stopped.get();
      }
      listener.close();
      CompletableFuture.allOf(listener.onClose(), routes.stop(grace)).whenComplete((v, e) -> f.complete(null));
      return f;
    }

    @Override
    public CompletableFuture<Void> onClose() {
      return listener.onClose();
    }

    @Override
    public String toString() {
      return listener.toString();
    }
  }

  private static String description(Object address, Settings s) {
    return "multiprotocol server " + address + (s.ssl != null ? " (tls)" : "")
        + " (tcp, ws and ws-h2 " + s.webSocketPath + ", h2c" + (s.ssl != null ? ", tls, wss, h2" : "")
        + (s.routes != null ? ", " + s.routes.name() : "") + ")";
  }

  @Override
  public String toString() {
    return description(settings.address, settings);
  }
}
