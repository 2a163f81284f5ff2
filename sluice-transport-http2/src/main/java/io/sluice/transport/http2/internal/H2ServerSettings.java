package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ServerTransport.Bound;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The settings every dedicated HTTP/2 server here shares (the stream mapping's {@code
 * Http2ServerTransport}, {@code WebSocketOverHttp2ServerTransport} and gRPC's {@code GrpcServer}),
 * with their defaults and their argument checks in one place: the address, the event loops, TLS,
 * the connection cap, SETTINGS_MAX_CONCURRENT_STREAMS, the stream window, the header list size,
 * the preface deadline and the bound on early resets. Each server keeps one of these beside what
 * is its own, and its {@code with*} methods return a server holding a changed copy.
 *
 * <p>Immutable: each {@code with*} checks its argument and returns a new instance. Internal: not an
 * API.
 */
public final class H2ServerSettings {
  /** Open connections per bound server unless a server is told otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
  /** Concurrent streams per connection unless a server is told otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 256;
  /** From accept (TLS handshake included) to the client's preface, unless a server is told otherwise. */
  public static final Duration DEFAULT_PREFACE_TIMEOUT = Duration.ofSeconds(10);

  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int maxConnections;
  private final int maxConcurrentStreams;
  private final int streamWindow;
  private final int maxHeaderList;
  private final Duration prefaceTimeout;
  private final int maxEarlyResets;
  private final Duration earlyResetWindow;

  private H2ServerSettings(
      InetSocketAddress address,
      EventLoopGroup group,
      SslContext ssl,
      int maxConnections,
      int maxConcurrentStreams,
      int streamWindow,
      int maxHeaderList,
      Duration prefaceTimeout,
      int maxEarlyResets,
      Duration earlyResetWindow) {
    this.address = address;
    this.group = group;
    this.ssl = ssl;
    this.maxConnections = maxConnections;
    this.maxConcurrentStreams = maxConcurrentStreams;
    this.streamWindow = streamWindow;
    this.maxHeaderList = maxHeaderList;
    this.prefaceTimeout = prefaceTimeout;
    this.maxEarlyResets = maxEarlyResets;
    this.earlyResetWindow = earlyResetWindow;
  }

  /**
   * The defaults for {@code host:port}; port 0 picks a free port.
   *
   * @throws IllegalArgumentException if {@code port} is not 0..65535
   */
  public static H2ServerSettings of(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    return new H2ServerSettings(
        new InetSocketAddress(Objects.requireNonNull(host, "host"), port),
        null,
        null,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_CONCURRENT_STREAMS,
        Http2Options.DEFAULT_STREAM_WINDOW,
        Http2Options.DEFAULT_MAX_HEADER_LIST,
        DEFAULT_PREFACE_TIMEOUT,
        Http2Options.DEFAULT_MAX_EARLY_RESETS,
        Http2Options.DEFAULT_EARLY_RESET_WINDOW);
  }

  public H2ServerSettings withEventLoopGroup(EventLoopGroup group) {
    return new H2ServerSettings(
        address, Objects.requireNonNull(group, "group"), ssl, maxConnections, maxConcurrentStreams,
        streamWindow, maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code ssl} does not offer ALPN {@code h2} */
  public H2ServerSettings withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.server(...).alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList,
        prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code maxConnections} is not positive */
  public H2ServerSettings withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList,
        prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code maxConcurrentStreams} is not positive */
  public H2ServerSettings withMaxConcurrentStreams(int maxConcurrentStreams) {
    if (maxConcurrentStreams <= 0) {
      throw new IllegalArgumentException("maxConcurrentStreams must be positive, got " + maxConcurrentStreams);
    }
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList,
        prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code bytes} is not 65535..2^31-1 */
  public H2ServerSettings withStreamWindowSize(int bytes) {
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, Http2Options.checkWindow(bytes),
        maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code bytes} is not 1 KiB..1 MiB */
  public H2ServerSettings withMaxHeaderListSize(int bytes) {
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow,
        Http2Options.checkHeaderList(bytes), prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code timeout} is not positive */
  public H2ServerSettings withPrefaceTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, timeout,
        maxEarlyResets, earlyResetWindow);
  }

  /** @throws IllegalArgumentException if {@code resets} is below 1 or {@code window} is not 1 ms..1 h */
  public H2ServerSettings withMaxEarlyResets(int resets, Duration window) {
    Http2Options.checkEarlyResets(resets, window);
    return new H2ServerSettings(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList,
        prefaceTimeout, resets, window);
  }

  public InetSocketAddress address() {
    return address;
  }

  /** The TLS context, or null for h2c. */
  public SslContext ssl() {
    return ssl;
  }

  public int maxConcurrentStreams() {
    return maxConcurrentStreams;
  }

  public int streamWindow() {
    return streamWindow;
  }

  public int maxHeaderList() {
    return maxHeaderList;
  }

  /** Each connection's limits: a connection window of 4 stream windows (at least 4 MiB), no connect protocol. */
  public H2Handler.Limits limits() {
    return withEarlyResets(Http2Options.limits(maxConcurrentStreams, streamWindow, maxHeaderList, false));
  }

  /** {@code limits} with this server's bound on early resets. */
  public H2Handler.Limits withEarlyResets(H2Handler.Limits limits) {
    return limits.withEarlyResets(maxEarlyResets, earlyResetWindow.toNanos());
  }

  /** Binds with these settings: see {@link H2Server#bind}. */
  public CompletableFuture<Bound> bind(
      String scheme, HttpServerConnections connections, Consumer<Channel> protocols, Runnable afterClose) {
    return H2Server.bind(
        scheme, address, group, ssl, maxConnections, prefaceTimeout, connections, protocols, afterClose);
  }

  /** The preface deadline in milliseconds, for servers that set up their own child channels. */
  public long prefaceMillis() {
    return prefaceTimeout.toMillis();
  }
}
