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
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Serves RSocket over HTTP/2 with the stream mapping (docs/http2-stream-mapping.md): each RSocket
 * stream a client starts is an HTTP/2 stream of its own; each TCP connection is one RSocket
 * connection, with the mapping's implied setup (no lease, no resumption, no setup payload, MIME
 * types {@code application/binary}), made when the client's preface arrives. h2c with prior knowledge,
 * or TLS with ALPN {@code h2} ({@link #withSsl}). Only clients start streams: requests the server's
 * responder side starts are answered REJECTED at once. Immutable: each {@code with*} returns a new
 * instance.
 *
 * <p>Defaults, all finite: {@value #DEFAULT_MAX_CONNECTIONS} connections; {@value
 * #DEFAULT_MAX_CONCURRENT_STREAMS} concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS;
 * netty refuses streams beyond it); a 1 MiB stream window and a 4 MiB connection window (given
 * back as soon as a frame reaches the engine: request-n is what bounds a peer); 8 KiB of headers
 * per request; the client's preface within 10 s of the connect (TLS handshake included), else the
 * connection is closed; at most {@value #DEFAULT_MAX_EARLY_RESETS} streams reset by the client
 * before an answer could reach it per 10 s ({@link #withMaxEarlyResets}: rapid reset). netty's HTTP/2
 * protections stay on: at most 200 RST_STREAM with an error code sent per 30 s, a cap on queued
 * control frames, on empty DATA frames and on CONTINUATION frames.
 *
 * <p>A request that is not the mapping's is answered with a status and its reason as plain text:
 * 415 for another {@code content-type}, 405 for a method other than POST, 404 for an unknown
 * {@code /rsocket/...} path; what the client still sends of it is dropped.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection.
 */
public final class Http2ServerTransport implements ServerTransport {
  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
  /** Concurrent streams per connection unless {@link #withMaxConcurrentStreams} says otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 256;
  /** Early resets per 10 s on one connection unless {@link #withMaxEarlyResets} says otherwise. */
  public static final int DEFAULT_MAX_EARLY_RESETS = Http2Options.DEFAULT_MAX_EARLY_RESETS;

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

  private Http2ServerTransport(
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

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static Http2ServerTransport create(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, got " + port);
    }
    return new Http2ServerTransport(
        new InetSocketAddress(Objects.requireNonNull(host, "host"), port),
        null,
        null,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_CONCURRENT_STREAMS,
        Http2Options.DEFAULT_STREAM_WINDOW,
        Http2Options.DEFAULT_MAX_HEADER_LIST,
        Duration.ofSeconds(10),
        Http2Options.DEFAULT_MAX_EARLY_RESETS,
        Http2Options.DEFAULT_EARLY_RESET_WINDOW);
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public Http2ServerTransport withEventLoopGroup(EventLoopGroup group) {
    return new Http2ServerTransport(
        address, Objects.requireNonNull(group, "group"), ssl, maxConnections, maxConcurrentStreams,
        streamWindow, maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /**
   * Serves HTTP/2 over TLS: {@code ssl} is a server context that offers ALPN {@code h2} (build it
   * with {@code Tls.server(...).alpn("h2")}); a client that negotiates anything else is closed.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public Http2ServerTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.server(...).alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** Most connections open at once; connections beyond it are closed on accept. */
  public Http2ServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once (1..2^31-1). */
  public Http2ServerTransport withMaxConcurrentStreams(int maxConcurrentStreams) {
    if (maxConcurrentStreams <= 0) {
      throw new IllegalArgumentException("maxConcurrentStreams must be positive, got " + maxConcurrentStreams);
    }
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /**
   * The receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes; the
   * connection's window is 4 times it, at least 4 MiB.
   */
  public Http2ServerTransport withStreamWindowSize(int bytes) {
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, Http2Options.checkWindow(bytes),
        maxHeaderList, prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** SETTINGS_MAX_HEADER_LIST_SIZE: the largest header block accepted (1 KiB..1 MiB). */
  public Http2ServerTransport withMaxHeaderListSize(int bytes) {
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow,
        Http2Options.checkHeaderList(bytes), prefaceTimeout, maxEarlyResets, earlyResetWindow);
  }

  /** Time from accept (TLS handshake included) to the client's preface; a slower client is closed. */
  public Http2ServerTransport withPrefaceTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, timeout, maxEarlyResets, earlyResetWindow);
  }

  /**
   * At most {@code resets} early resets per {@code window} on one connection (default {@value
   * #DEFAULT_MAX_EARLY_RESETS} per 10 s): streams the client resets before an answer could reach
   * it (before any response headers, or in the same read as the request that opened them), the
   * pattern of rapid reset (CVE-2023-44487), whose work the client never waits for. One more
   * closes the connection with GOAWAY(ENHANCE_YOUR_CALM). A cancel of a stream the client had an
   * answer on ({@code take(n)}, a timeout during a stream) is not counted here; the engine's
   * {@code maxCancelsPerSecond} bounds those.
   *
   * @throws IllegalArgumentException if {@code resets} is below 1 or {@code window} is not 1 ms..1 h
   */
  public Http2ServerTransport withMaxEarlyResets(int resets, Duration window) {
    Http2Options.checkEarlyResets(resets, window);
    return new Http2ServerTransport(
        address, group, ssl, maxConnections, maxConcurrentStreams, streamWindow, maxHeaderList, prefaceTimeout,
        resets, window);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    H2Handler.Limits limits =
        Http2Options.limits(maxConcurrentStreams, streamWindow, maxHeaderList, false)
            .withEarlyResets(maxEarlyResets, earlyResetWindow.toNanos());
    // The engine drains the mapping's connections (its GOAWAY carries the RSocket error).
    return H2Server.bind(
        ssl != null ? "h2" : "h2c",
        address, group, ssl, maxConnections, prefaceTimeout,
        new HttpServerConnections(ch -> true),
        H2Server.http2Only(ssl, () -> H2Handler.build(true, limits, new ServerStreams(onConnection, true))),
        null);
  }

  @Override
  public String toString() {
    return (ssl != null ? "h2" : "h2c") + " server " + address;
  }
}
