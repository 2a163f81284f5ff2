package io.sluice.transport.grpc;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.internal.web.AlpnGrpc;
import io.sluice.transport.grpc.internal.web.CleartextDetector;
import io.sluice.transport.grpc.internal.web.Http1Handler;
import io.sluice.transport.http2.internal.H2Server;
import io.sluice.transport.http2.internal.H2KeepAlive;
import io.sluice.transport.http2.internal.H2ServerSettings;
import io.sluice.transport.http2.internal.WriteStallGuard;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.grpc.internal.web.WebRoute;
import io.sluice.transport.http2.internal.AlpnH2;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.netty.internal.ServerChannels;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import io.netty.channel.ChannelHandlerContext;

/**
 * Serves Sluice RPC services over gRPC's HTTP/2 protocol, so that stock gRPC clients call them
 * directly: h2c with prior knowledge, or TLS with ALPN {@code h2} ({@link #withSsl}); and the same
 * services to browsers (gRPC-Web) and plain HTTP clients (HTTP/JSON) over HTTP/2 and HTTP/1.1
 * (cleartext connections are told apart by their first bytes; over TLS by ALPN). Any service
 * of a {@link ServiceRegistry} (the generated server of any flavor) is served through the
 * transport-neutral call model. Immutable: each {@code with*} returns a new instance.
 *
 * <pre>{@code
 * GrpcServer.Running server =
 *     GrpcServer.create("127.0.0.1", 50051).withServices(registry).start();
 * ...
 * server.stop(Duration.ofSeconds(30)).join(); // or close(): the calls in flight may finish
 * }</pre>
 *
 * <p>What it speaks: {@code application/grpc} and {@code application/grpc+proto}; gRPC-Web
 * ({@code application/grpc-web}, {@code -text}) and {@code application/json} for unary and
 * server-streaming methods, with CORS as {@link GrpcServices#withCorsAllowedOrigins} says (other
 * content types get 415); unary and streaming calls both ways, {@code grpc-timeout} as the call's
 * deadline (DEADLINE_EXCEEDED, the handler is cancelled), metadata as call {@link
 * io.sluice.rpc.Headers} ({@code -bin} keys binary), response headers and trailers the handler
 * sets, {@code grpc-status}/{@code grpc-message} (percent-encoded) trailers and trailers-only
 * responses, RST_STREAM as cancel, identity and gzip messages, UNIMPLEMENTED for unknown services
 * and methods. See docs/guide/grpc.md.
 *
 * <p>Defaults, all finite: {@value #DEFAULT_MAX_CONNECTIONS} connections; {@value
 * #DEFAULT_MAX_CONCURRENT_STREAMS} concurrent calls per connection; a 1 MiB stream window (a
 * request's bytes go back to it only as the handler asks for messages), a 4 MiB connection
 * window; 8 KiB of metadata per request; a 16 MiB message limit ({@link GrpcServices}); the
 * client's preface (or first HTTP/1.1 request head) within 10 s of the connect; at most {@value
 * #DEFAULT_MAX_EARLY_RESETS} calls reset by the client before an answer could reach it per 10 s
 * ({@link #withMaxEarlyResets}: rapid reset); a keepalive PING after 2 h without reading anything
 * from a connection, closed if nothing is read within 20 s after it ({@link #withKeepAlive}). netty's
 * HTTP/2 protections stay on (the limit on
 * RST_STREAM sent, control frame, empty DATA and CONTINUATION limits). {@link Running#close()} and
 * {@link Running#stop} let the calls in flight finish.
 *
 * <p><b>Threads.</b> Calls run on their connection's event loop. <b>Buffers.</b> None cross this
 * class.
 */
public final class GrpcServer {
  /** Open connections unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = H2ServerSettings.DEFAULT_MAX_CONNECTIONS;
  /** Concurrent calls per connection unless {@link #withMaxConcurrentStreams} says otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = H2ServerSettings.DEFAULT_MAX_CONCURRENT_STREAMS;
  /** See {@link #withWriteStallTimeout}. */
  public static final Duration DEFAULT_WRITE_STALL_TIMEOUT = Duration.ofSeconds(30);
  /** Early resets per 10 s on one connection unless {@link #withMaxEarlyResets} says otherwise. */
  public static final int DEFAULT_MAX_EARLY_RESETS = Http2Options.DEFAULT_MAX_EARLY_RESETS;

  /** See {@link #withKeepAlive}: as grpc-java's server. */
  public static final Duration DEFAULT_KEEPALIVE_TIME = H2KeepAlive.DEFAULT_TIME;
  /** See {@link #withKeepAlive}: as grpc-java's server. */
  public static final Duration DEFAULT_KEEPALIVE_TIMEOUT = H2KeepAlive.DEFAULT_TIMEOUT;

  private final H2ServerSettings settings;
  private final GrpcServices services;
  private final Duration writeStallTimeout;
  private final Duration keepAliveTime;
  private final Duration keepAliveTimeout;

  private GrpcServer(
      H2ServerSettings settings, GrpcServices services, Duration writeStallTimeout, Duration keepAliveTime,
      Duration keepAliveTimeout) {
    this.settings = settings;
    this.services = services;
    this.writeStallTimeout = writeStallTimeout;
    this.keepAliveTime = keepAliveTime;
    this.keepAliveTimeout = keepAliveTimeout;
  }

  /** A server for {@code host:port}; port 0 picks a free port ({@link Running#address()} tells). */
  public static GrpcServer create(String host, int port) {
    return new GrpcServer(
        H2ServerSettings.of(host, port), null, DEFAULT_WRITE_STALL_TIMEOUT, DEFAULT_KEEPALIVE_TIME,
        DEFAULT_KEEPALIVE_TIMEOUT);
  }

  private GrpcServer with(H2ServerSettings settings) {
    return new GrpcServer(settings, services, writeStallTimeout, keepAliveTime, keepAliveTimeout);
  }

  private GrpcServer with(GrpcServices services) {
    return new GrpcServer(settings, services, writeStallTimeout, keepAliveTime, keepAliveTimeout);
  }

  /** Serves the services of {@code registry} (keeping options set by earlier {@code with*}). */
  public GrpcServer withServices(ServiceRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    GrpcServices s = services == null ? GrpcServices.of(registry) : copy(services, registry);
    return with(s);
  }

  private static GrpcServices copy(GrpcServices from, ServiceRegistry registry) {
    GrpcServices copy = GrpcServices.of(registry)
        .withMaxInboundMessageSize(from.maxInboundMessageSize())
        .withGzipResponses(from.gzipResponses())
        .withInstrumentation(from.instrumentation())
        .withCorsAllowedOrigins(from.corsAllowedOrigins().toArray(String[]::new))
        .withRequestBodyTimeout(from.requestBodyTimeout());
    return from.console() == null ? copy : copy.withConsole(from.console());
  }

  /** Serves as {@code services} says. */
  public GrpcServer withServices(GrpcServices services) {
    return with(Objects.requireNonNull(services, "services"));
  }

  /** See {@link GrpcServices#withMaxInboundMessageSize}; set the services first. */
  public GrpcServer withMaxInboundMessageSize(int bytes) {
    return withServices(services().withMaxInboundMessageSize(bytes));
  }

  /** See {@link GrpcServices#withGzipResponses}; set the services first. */
  public GrpcServer withGzipResponses(boolean gzip) {
    return withServices(services().withGzipResponses(gzip));
  }

  /**
   * Serves the console page at {@code http://HOST:PORT/console/} to loopback clients (see {@link
   * Console}); set the services first.
   */
  public GrpcServer withConsole() {
    return withServices(services().withConsole());
  }

  /** Serves the console page as {@code console} says; set the services first. */
  public GrpcServer withConsole(Console console) {
    return withServices(services().withConsole(console));
  }

  private GrpcServices services() {
    if (services == null) {
      throw new IllegalStateException("set the services first: withServices(registry)");
    }
    return services;
  }

  /** Uses {@code group} for accepted connections instead of the shared default group. */
  public GrpcServer withEventLoopGroup(EventLoopGroup group) {
    return with(settings.withEventLoopGroup(group));
  }

  /**
   * Serves gRPC over TLS: {@code ssl} is a server context that offers ALPN {@code h2} (build it
   * with {@code Tls.server(...).alpn("h2")}); a client that negotiates anything else is closed.
   * When it also offers {@code http/1.1} ({@code .alpn("h2", "http/1.1")}), HTTP/1.1 clients
   * (gRPC-Web, HTTP/JSON) are served too, and a client that sends no ALPN is told by its first
   * bytes.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public GrpcServer withSsl(SslContext ssl) {
    return with(settings.withSsl(ssl));
  }

  /** Most connections open at once; connections beyond it are closed on accept. */
  public GrpcServer withMaxConnections(int maxConnections) {
    return with(settings.withMaxConnections(maxConnections));
  }

  /** SETTINGS_MAX_CONCURRENT_STREAMS: calls a client may have open at once on one connection. */
  public GrpcServer withMaxConcurrentStreams(int maxConcurrentStreams) {
    return with(settings.withMaxConcurrentStreams(maxConcurrentStreams));
  }

  /**
   * The receive window of each call (SETTINGS_INITIAL_WINDOW_SIZE), 65535..2^31-1 bytes: the most
   * request bytes a caller sends ahead of what the handler asked for. The connection's window is 4
   * times it, at least 4 MiB.
   */
  public GrpcServer withStreamWindowSize(int bytes) {
    return with(settings.withStreamWindowSize(bytes));
  }

  /** SETTINGS_MAX_HEADER_LIST_SIZE: the largest request metadata accepted (1 KiB..1 MiB). */
  public GrpcServer withMaxHeaderListSize(int bytes) {
    return with(settings.withMaxHeaderListSize(bytes));
  }

  /**
   * Time from accept (TLS handshake included) to the client's preface, or over HTTP/1.1 to the
   * head of its first request; a slower client is closed.
   */
  public GrpcServer withPrefaceTimeout(Duration timeout) {
    return with(settings.withPrefaceTimeout(timeout));
  }

  /**
   * At most {@code resets} early resets per {@code window} on one connection (default {@value
   * #DEFAULT_MAX_EARLY_RESETS} per 10 s): calls the client resets before an answer could reach it
   * (before any response headers, or in the same read as the request that opened them), the
   * pattern of rapid reset (CVE-2023-44487), whose handlers run for nobody. One more closes the
   * connection with GOAWAY(ENHANCE_YOUR_CALM). A call cancelled after the client had its response
   * headers (a deadline during a server stream, a cancelled stream) is not counted.
   *
   * @throws IllegalArgumentException if {@code resets} is below 1 or {@code window} is not 1 ms..1 h
   */
  public GrpcServer withMaxEarlyResets(int resets, Duration window) {
    return with(settings.withMaxEarlyResets(resets, window));
  }

  /**
   * How long a connection's peer may read nothing while output is queued for it before the
   * connection is closed (default 30 s, as {@code ConnectionOptions.writeStallTimeout} for RSocket
   * connections): a peer that floods SETTINGS or PINGs and never reads the ACKs, or stops reading
   * altogether, gives its connection slot back. Output waiting for the peer's flow-control window
   * is not queued on the socket, so a peer that only keeps its windows shut is not cut by this.
   */
  public GrpcServer withWriteStallTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return new GrpcServer(settings, services, timeout, keepAliveTime, keepAliveTimeout);
  }

  /**
   * Keepalive of each HTTP/2 connection (default 2 h and 20 s, grpc-java's server defaults): after
   * {@code time} without reading anything from the client the server sends a PING, and closes the
   * connection if nothing is read within {@code timeout} after it. A client that vanished without
   * closing its connection (a crash, a lost network, a NAT that forgot it) then gives its
   * connection slot back. Anything read counts as life; a client that answers PINGs is never
   * closed by this. Silence is noticed between {@code time} and twice {@code time} after the last
   * read. HTTP/1.1 connections (gRPC-Web, HTTP/JSON) have their own idle timeout instead.
   *
   * @throws IllegalArgumentException if {@code time} is under 1 s or {@code timeout} is not positive
   */
  public GrpcServer withKeepAlive(Duration time, Duration timeout) {
    H2KeepAlive.check(time, timeout);
    return new GrpcServer(settings, services, writeStallTimeout, time, timeout);
  }

  /** Binds and starts serving; the future fails if the address cannot be bound. */
  public CompletableFuture<Running> bind() {
    WebRoute route = new WebRoute(services());
    H2Handler.Limits limits = settings.limits();
    // Nothing here is handed to an engine: a connection neither HTTP/2 nor HTTP/1.1 yet is closed.
    HttpServerConnections connections = new HttpServerConnections(ch -> true);
    route.countConnections(connections::size);
    return settings
        .bind(scheme(), connections, protocols(route, limits), null)
        .thenApply(b -> new Running(b, connections));
  }

  /**
   * Binds and starts serving, waiting for the bind.
   *
   * @throws IllegalStateException if the address cannot be bound (the cause says why)
   */
  public Running start() {
    try {
      return bind().join();
    } catch (CompletionException e) {
      throw new IllegalStateException("cannot start the gRPC server on " + settings.address() + ": " + e.getCause(), e.getCause());
    }
  }

  /** What the bind does with each accepted connection after TLS (for tests that move a channel's clock). */
  ServerChannels.ChildSetup childSetup(WebRoute route, H2Handler.Limits limits, HttpServerConnections connections) {
    Consumer<Channel> protocols = protocols(route, limits);
    long prefaceMillis = settings.prefaceMillis();
    return ch -> {
      connections.add(ch);
      protocols.accept(ch);
      H2Server.closeWithoutPreface(ch, prefaceMillis);
    };
  }

  /**
   * The protocol handlers of each accepted connection (after TLS, which the bind adds): HTTP/2,
   * or HTTP/1.1 for gRPC-Web and HTTP/JSON; the first request's head is timed from accept, as the
   * HTTP/2 preface is (H2Server).
   */
  Consumer<Channel> protocols(WebRoute route, H2Handler.Limits limits) {
    Consumer<ChannelHandlerContext> http2 = ctx -> ctx.pipeline().addLast(H2Handler.build(true, limits, route));
    Consumer<ChannelHandlerContext> http1 = ctx -> Http1Handler.install(ctx.pipeline(), route, 0, settings.maxHeaderList());
    SslContext ssl = settings.ssl();
    boolean tlsHttp1 =
        ssl != null && ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_1_1);
    return ch -> {
      WriteStallGuard.install(ch, writeStallTimeout);
      H2KeepAlive.install(ch, keepAliveTime, keepAliveTimeout);
      if (ssl == null) {
        // h2c with prior knowledge, or HTTP/1.1 (gRPC-Web, HTTP/JSON): the first bytes tell.
        ch.pipeline().addLast(new CleartextDetector(http2, http1));
      } else if (tlsHttp1) {
        ch.pipeline().addLast(new AlpnGrpc(http2, http1));
      } else {
        ch.pipeline().addLast(new AlpnH2(() -> H2Handler.build(true, limits, route), "the client", null));
      }
    };
  }

  @Override
  public String toString() {
    return scheme() + " server " + settings.address();
  }

  private String scheme() {
    return settings.ssl() != null ? "gRPC over h2" : "gRPC over h2c";
  }

  /** A bound, serving gRPC server. Thread-safe. */
  public static final class Running implements AutoCloseable {
    /** How long {@link #close()} lets the calls in flight finish. */
    public static final Duration CLOSE_GRACE = Duration.ofSeconds(30);

    private final ServerTransport.Bound bound;
    private final HttpServerConnections connections;
    private final AtomicReference<CompletableFuture<Void>> stopped = new AtomicReference<>();

    private Running(ServerTransport.Bound bound, HttpServerConnections connections) {
      this.bound = bound;
      this.connections = connections;
    }

    /** The address bound (with the real port when port 0 was asked for). */
    public SocketAddress address() {
      return bound.address();
    }

    /** The port bound. */
    public int port() {
      return ((InetSocketAddress) bound.address()).getPort();
    }

    /**
     * Stops the server gracefully: stops accepting at once; tells the client of every HTTP/2
     * connection to start no more calls there (GOAWAY with the last stream it opened: a call
     * started after it fails over to another connection, UNAVAILABLE here), lets the calls in
     * flight finish and closes each connection once its last call ended; an HTTP/1.1 connection
     * closes once the response under way is over. What is still open after {@code grace} is
     * closed then (its calls are cancelled: handlers see {@code onCancel}, callers UNAVAILABLE).
     * Calling it again returns the same future and changes nothing.
     *
     * @return completes once the listener and every connection have closed
     * @throws IllegalArgumentException if {@code grace} is negative
     */
    public CompletableFuture<Void> stop(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("grace must not be negative: " + grace);
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      if (!stopped.compareAndSet(null, f)) {
        return stopped.get();
      }
      bound.close();
      CompletableFuture.allOf(bound.onClose(), connections.stop(grace))
          .whenComplete((v, e) -> f.complete(null));
      return f;
    }

    /**
     * {@link #stop} with {@link #CLOSE_GRACE} (30 s), without waiting: the calls in flight may
     * finish. Idempotent; {@link #onClose()} completes once the listener is closed.
     */
    @Override
    public void close() {
      stop(CLOSE_GRACE);
    }

    /**
     * The connections open now, HTTP/2 and HTTP/1.1 (gRPC-Web, HTTP/JSON) alike, including those
     * whose protocol is not known yet: a racy read, for figures and monitoring.
     */
    public int connections() {
      return connections.size();
    }

    /** Completes once the listener is closed (the connections may still drain: see {@link #stop}). */
    public CompletableFuture<Void> onClose() {
      return bound.onClose();
    }

    @Override
    public String toString() {
      return bound.toString();
    }
  }
}
