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
  public static final int DEFAULT_MAX_CONNECTIONS = H2ServerSettings.DEFAULT_MAX_CONNECTIONS;
  /** Concurrent streams per connection unless {@link #withMaxConcurrentStreams} says otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = H2ServerSettings.DEFAULT_MAX_CONCURRENT_STREAMS;
  /** Early resets per 10 s on one connection unless {@link #withMaxEarlyResets} says otherwise. */
  public static final int DEFAULT_MAX_EARLY_RESETS = Http2Options.DEFAULT_MAX_EARLY_RESETS;

  private final H2ServerSettings settings;

  private Http2ServerTransport(H2ServerSettings settings) {
    this.settings = settings;
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static Http2ServerTransport create(String host, int port) {
    return new Http2ServerTransport(H2ServerSettings.of(host, port));
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public Http2ServerTransport withEventLoopGroup(EventLoopGroup group) {
    return new Http2ServerTransport(settings.withEventLoopGroup(group));
  }

  /**
   * Serves HTTP/2 over TLS: {@code ssl} is a server context that offers ALPN {@code h2} (build it
   * with {@code Tls.server(...).alpn("h2")}); a client that negotiates anything else is closed.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public Http2ServerTransport withSsl(SslContext ssl) {
    return new Http2ServerTransport(settings.withSsl(ssl));
  }

  /** Most connections open at once; connections beyond it are closed on accept. */
  public Http2ServerTransport withMaxConnections(int maxConnections) {
    return new Http2ServerTransport(settings.withMaxConnections(maxConnections));
  }

  /** SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once (1..2^31-1). */
  public Http2ServerTransport withMaxConcurrentStreams(int maxConcurrentStreams) {
    return new Http2ServerTransport(settings.withMaxConcurrentStreams(maxConcurrentStreams));
  }

  /**
   * The receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes; the
   * connection's window is 4 times it, at least 4 MiB.
   */
  public Http2ServerTransport withStreamWindowSize(int bytes) {
    return new Http2ServerTransport(settings.withStreamWindowSize(bytes));
  }

  /** SETTINGS_MAX_HEADER_LIST_SIZE: the largest header block accepted (1 KiB..1 MiB). */
  public Http2ServerTransport withMaxHeaderListSize(int bytes) {
    return new Http2ServerTransport(settings.withMaxHeaderListSize(bytes));
  }

  /** Time from accept (TLS handshake included) to the client's preface; a slower client is closed. */
  public Http2ServerTransport withPrefaceTimeout(Duration timeout) {
    return new Http2ServerTransport(settings.withPrefaceTimeout(timeout));
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
    return new Http2ServerTransport(settings.withMaxEarlyResets(resets, window));
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    Objects.requireNonNull(onConnection, "onConnection");
    H2Handler.Limits limits = settings.limits();
    SslContext ssl = settings.ssl();
    // The engine drains the mapping's connections (its GOAWAY carries the RSocket error).
    return settings.bind(
        ssl != null ? "h2" : "h2c",
        new HttpServerConnections(ch -> true),
        H2Server.http2Only(ssl, () -> H2Handler.build(true, limits, new ServerStreams(onConnection, true))),
        null);
  }

  @Override
  public String toString() {
    return (settings.ssl() != null ? "h2" : "h2c") + " server " + settings.address();
  }
}
