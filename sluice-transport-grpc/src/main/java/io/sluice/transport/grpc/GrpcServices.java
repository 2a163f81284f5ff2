package io.sluice.transport.grpc;

import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.internal.web.WebRoute;
import io.sluice.transport.http2.HttpRoutes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * What a gRPC server serves and how: the services, the largest request message accepted, whether
 * responses are gzip-compressed, and the instrumentation that observes calls. Used by {@link
 * GrpcServer}, and by any server of several protocols through {@link #httpRoutes()} (the one-port
 * server's {@code withHttpRoutes}). Immutable: each {@code with*}
 * returns a new instance; safe to share between threads. Holds no buffers.
 *
 * <p>Defaults: a {@value #DEFAULT_MAX_INBOUND_MESSAGE_SIZE}-byte (16 MiB) inbound message limit,
 * checked on the message's prefix and again after decompression (a larger message ends the call
 * with RESOURCE_EXHAUSTED); responses uncompressed; no instrumentation; no CORS origin (gRPC-Web
 * and HTTP/JSON serve same-origin browser pages only, see {@link #withCorsAllowedOrigins}); 30 s
 * for a gRPC-Web or JSON request's body ({@link #withRequestBodyTimeout}).
 *
 * <p>Besides gRPC, the same services answer gRPC-Web ({@code application/grpc-web},
 * {@code application/grpc-web-text}) and HTTP/JSON ({@code application/json}): see
 * docs/guide/grpc.md.
 */
public final class GrpcServices {
  /** The largest request message accepted unless {@link #withMaxInboundMessageSize} says otherwise. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 16 << 20;

  /** A gRPC-Web or JSON request's time to send its body unless {@link #withRequestBodyTimeout} says otherwise. */
  public static final Duration DEFAULT_REQUEST_BODY_TIMEOUT = Duration.ofSeconds(30);

  private final ServiceRegistry registry;
  private final int maxInboundMessageSize;
  private final boolean gzipResponses;
  private final RpcInstrumentation instrumentation;
  private final Set<String> corsAllowedOrigins;
  private final Duration requestBodyTimeout;
  private final Console console; // null: no console

  private GrpcServices(
      ServiceRegistry registry,
      int maxInboundMessageSize,
      boolean gzipResponses,
      RpcInstrumentation instrumentation,
      Set<String> corsAllowedOrigins,
      Duration requestBodyTimeout,
      Console console) {
    this.console = console;
    this.registry = registry;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.gzipResponses = gzipResponses;
    this.instrumentation = instrumentation;
    this.corsAllowedOrigins = corsAllowedOrigins;
    this.requestBodyTimeout = requestBodyTimeout;
  }

  /**
   * These services as routes another HTTP server plugs in: gRPC, gRPC-Web and HTTP/JSON requests on
   * its HTTP/2 connections (by content type), and its HTTP/1.1 connections whose first request is
   * gRPC-Web, HTTP/JSON or a CORS preflight; for example {@code
   * MultiProtocolServerTransport.create(host, port).withHttpRoutes(GrpcServices.of(registry).httpRoutes())}.
   * The server keeps the connections (TLS, HTTP/2 settings, resets, shutdown); these only serve
   * their requests.
   */
  public HttpRoutes httpRoutes() {
    return new WebRoute(this);
  }

  /** Serves the services of {@code registry} with the defaults. */
  public static GrpcServices of(ServiceRegistry registry) {
    return new GrpcServices(
        Objects.requireNonNull(registry, "registry"),
        DEFAULT_MAX_INBOUND_MESSAGE_SIZE,
        false,
        RpcInstrumentation.NONE,
        Set.of(),
        DEFAULT_REQUEST_BODY_TIMEOUT,
        null);
  }

  /**
   * The largest request message accepted, in bytes after decompression (0..2^31-1); a gzip
   * message is inflated only up to it.
   */
  public GrpcServices withMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("max inbound message size must not be negative, got " + bytes);
    }
    return new GrpcServices(registry, bytes, gzipResponses, instrumentation, corsAllowedOrigins, requestBodyTimeout, console);
  }

  /**
   * Compresses response messages with gzip for callers that accept it ({@code
   * grpc-accept-encoding}); off by default (it costs CPU to save bandwidth).
   */
  public GrpcServices withGzipResponses(boolean gzip) {
    return new GrpcServices(
        registry, maxInboundMessageSize, gzip, instrumentation, corsAllowedOrigins, requestBodyTimeout, console);
  }

  /** Observes every call (metrics, tracing). */
  public GrpcServices withInstrumentation(RpcInstrumentation instrumentation) {
    return new GrpcServices(
        registry,
        maxInboundMessageSize,
        gzipResponses,
        Objects.requireNonNull(instrumentation, "instrumentation"),
        corsAllowedOrigins,
        requestBodyTimeout,
        console);
  }

  /**
   * Lets browser pages of these origins call gRPC-Web and HTTP/JSON across origins (CORS): their
   * preflights ({@code OPTIONS}) are answered, and responses carry {@code
   * Access-Control-Allow-Origin} for them. Each origin as browsers send it ({@code
   * https://app.example.com:8443}); {@code "*"} allows any origin. None (the default, or no
   * argument): CORS off, only same-origin pages can call, preflights get 403. Cookies are never
   * allowed across origins.
   */
  public GrpcServices withCorsAllowedOrigins(String... origins) {
    Set<String> set = Set.copyOf(Arrays.asList(origins));
    for (String o : set) {
      if (o.isBlank() || o.endsWith("/")) {
        throw new IllegalArgumentException("an origin is scheme://host[:port] without a path, got '" + o + "'");
      }
    }
    return new GrpcServices(registry, maxInboundMessageSize, gzipResponses, instrumentation, set, requestBodyTimeout, console);
  }

  /**
   * The longest a gRPC-Web or HTTP/JSON request may take from its headers to the end of its body
   * (default {@link #DEFAULT_REQUEST_BODY_TIMEOUT}, 30 s), over HTTP/2 and HTTP/1.1. A request
   * still incomplete then is answered DEADLINE_EXCEEDED (gRPC-Web) or 408 (JSON) and what it
   * sent is released. Its handler has not started yet: a handler's own time is the call's
   * deadline ({@code grpc-timeout}). gRPC calls stream their requests and have no such limit.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public GrpcServices withRequestBodyTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    return new GrpcServices(registry, maxInboundMessageSize, gzipResponses, instrumentation, corsAllowedOrigins, timeout, console);
  }

  /**
   * Serves the console page at {@code /console/} (see {@link Console}): loopback clients only,
   * the figures counted by the console from the calls and connections of the server.
   */
  public GrpcServices withConsole() {
    return withConsole(Console.create());
  }

  /** Serves the console page as {@code console} says. */
  public GrpcServices withConsole(Console console) {
    return new GrpcServices(
        registry, maxInboundMessageSize, gzipResponses, instrumentation, corsAllowedOrigins, requestBodyTimeout,
        Objects.requireNonNull(console, "console"));
  }

  /** The console, or null when none is served (the default). */
  public Console console() {
    return console;
  }

  /** See {@link #withRequestBodyTimeout}. */
  public Duration requestBodyTimeout() {
    return requestBodyTimeout;
  }

  /** The origins allowed across origins (empty: CORS off). */
  public Set<String> corsAllowedOrigins() {
    return corsAllowedOrigins;
  }

  public ServiceRegistry registry() {
    return registry;
  }

  public int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  public boolean gzipResponses() {
    return gzipResponses;
  }

  public RpcInstrumentation instrumentation() {
    return instrumentation;
  }
}
