package io.sluice.transport.grpc;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.internal.client.ClientConnection;
import io.sluice.transport.http2.internal.H2Connector;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to a gRPC server (grpc-java's, grpc-go's, Sluice's own...) over HTTP/2: h2c with prior
 * knowledge, or TLS with ALPN {@code h2} ({@link #withSsl}). Each {@link #connect()} makes one
 * connection, a {@link GrpcChannel} that Sluice's generated clients call through. Immutable: each
 * {@code with*} returns a new instance.
 *
 * <pre>{@code
 * GrpcChannel channel = GrpcClientTransport.create("127.0.0.1", 50051).connect().join();
 * FuturesGreeterClient greeter = new FuturesGreeterClient(channel); // any flavor's generated client
 * }</pre>
 *
 * <p>A connect that fails (nothing listening, a failed TLS handshake, ALPN not choosing {@code h2})
 * completes the future exceptionally with a {@link StatusException} UNAVAILABLE naming the server
 * and the cause.
 *
 * <p>Defaults: responses up to 4 MiB per message ({@link #withMaxInboundMessageSize}), a 1 MiB
 * HTTP/2 receive window per call, response headers up to 8 KiB, a 10 s connect timeout, the
 * shared Sluice event loops.
 */
public final class GrpcClientTransport {
  /** The default largest response message, as grpc-java's. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 << 20;

  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int connectTimeoutMillis;
  private final int maxInboundMessageSize;
  private final int streamWindow;
  private final int maxHeaderList;

  private GrpcClientTransport(
      String host,
      int port,
      EventLoopGroup group,
      SslContext ssl,
      int connectTimeoutMillis,
      int maxInboundMessageSize,
      int streamWindow,
      int maxHeaderList) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.ssl = ssl;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.streamWindow = streamWindow;
    this.maxHeaderList = maxHeaderList;
  }

  /** Connects to {@code host:port}. */
  public static GrpcClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new GrpcClientTransport(
        Objects.requireNonNull(host, "host"), port, null, null, 10_000, DEFAULT_MAX_INBOUND_MESSAGE_SIZE,
        Http2Options.DEFAULT_STREAM_WINDOW, Http2Options.DEFAULT_MAX_HEADER_LIST);
  }

  /** Connects to {@code address}. */
  public static GrpcClientTransport create(InetSocketAddress address) {
    return create(address.getHostString(), address.getPort());
  }

  /** Uses {@code group} instead of the shared default group. */
  public GrpcClientTransport withEventLoopGroup(EventLoopGroup group) {
    return new GrpcClientTransport(
        host, port, Objects.requireNonNull(group, "group"), ssl, connectTimeoutMillis, maxInboundMessageSize,
        streamWindow, maxHeaderList);
  }

  /**
   * Speaks TLS with {@code ssl}, a client context that offers ALPN {@code h2} ({@code
   * Tls.client()...alpn("h2")}); a server that does not choose {@code h2} fails the connect.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public GrpcClientTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.client()...alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new GrpcClientTransport(
        host, port, group, ssl, connectTimeoutMillis, maxInboundMessageSize, streamWindow, maxHeaderList);
  }

  /** Longest a connect (TLS handshake included) may take before it fails (default 10 s). */
  public GrpcClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new GrpcClientTransport(
        host, port, group, ssl, millis, maxInboundMessageSize, streamWindow, maxHeaderList);
  }

  /**
   * The largest response message accepted, in bytes, after decompression (default 4 MiB); a
   * larger one fails its call with RESOURCE_EXHAUSTED before its bytes are buffered.
   */
  public GrpcClientTransport withMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("max inbound message size must not be negative, got " + bytes);
    }
    return new GrpcClientTransport(host, port, group, ssl, connectTimeoutMillis, bytes, streamWindow, maxHeaderList);
  }

  /**
   * The HTTP/2 receive window of each call (65535..2^31-1 bytes, default 1 MiB): how many bytes a
   * server may send ahead of what the caller has taken.
   */
  public GrpcClientTransport withStreamWindowSize(int bytes) {
    return new GrpcClientTransport(
        host, port, group, ssl, connectTimeoutMillis, maxInboundMessageSize, Http2Options.checkWindow(bytes),
        maxHeaderList);
  }

  /** The largest response header list accepted (1024..1048576 bytes, default 8 KiB). */
  public GrpcClientTransport withMaxHeaderListSize(int bytes) {
    return new GrpcClientTransport(
        host, port, group, ssl, connectTimeoutMillis, maxInboundMessageSize, streamWindow,
        Http2Options.checkHeaderList(bytes));
  }

  /**
   * Opens one connection. Completes on the connection's event loop once the connection is ready
   * to take calls (for TLS, once ALPN chose {@code h2}); fails with a {@link StatusException}
   * UNAVAILABLE.
   */
  public CompletableFuture<GrpcChannel> connect() {
    H2Connector.Target target =
        new H2Connector.Target(
            group, host, port, ssl, connectTimeoutMillis, Http2Options.limits(0, streamWindow, maxHeaderList, false));
    String peer = "the gRPC server at " + host + ":" + port;
    CompletableFuture<GrpcChannel> result = new CompletableFuture<>();
    H2Connector.connect(
        target,
        peer,
        new H2Connector.Outcome() {
          @Override
          public void onHttp2(H2Handler handler) {
            result.complete(channel(handler, target.scheme(), target.authority(), peer));
          }

          @Override
          public void onFailure(Throwable cause) {
            result.completeExceptionally(unavailable(peer, cause));
          }
        });
    return result;
  }

  private GrpcChannel channel(H2Handler h, AsciiString scheme, AsciiString authority, String peer) {
    return new GrpcChannel(new ClientConnection(h, scheme, authority, maxInboundMessageSize, peer));
  }

  private static StatusException unavailable(String peer, Throwable cause) {
    return new StatusException(
        Status.of(Status.Code.UNAVAILABLE, "cannot connect to " + peer + ": " + cause.getMessage()), cause);
  }

  @Override
  public String toString() {
    return "gRPC " + (ssl != null ? "h2" : "h2c") + " client " + host + ":" + port;
  }
}
