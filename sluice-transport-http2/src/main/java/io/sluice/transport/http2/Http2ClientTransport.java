package io.sluice.transport.http2;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.http2.internal.H2Connector;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.http2.internal.MappingWire;
import io.sluice.transport.http2.internal.StreamMapping;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * Connects to an {@link Http2ServerTransport} (or any server of the HTTP/2 stream mapping,
 * docs/http2-stream-mapping.md): one TCP connection is one RSocket connection, each stream an
 * HTTP/2 stream of its own. h2c with prior knowledge, or TLS with ALPN {@code h2} ({@link
 * #withSsl}). Immutable: each {@code with*} returns a new instance.
 *
 * <p>The mapping's setup is implied, so a connection over it must ask for no lease and no
 * resumption and carry no setup payload: such a SETUP fails the connect with UNSUPPORTED_SETUP
 * (the server sees MIME types {@code application/binary} whatever the client names). The
 * connection's keepalive is HTTP/2 PING: its interval and lifetime are the client's {@code
 * ConnectionOptions}; each PING's round trip goes to {@link #withKeepAliveRttListener}.
 * METADATA_PUSH is not carried (dropped); a request the server would start never arrives.
 *
 * <p>A stream the server refuses (its concurrent stream limit, or a GOAWAY before the stream was
 * processed) fails with REJECTED, so it is safe to send again.
 */
public final class Http2ClientTransport implements ClientTransport {
  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int connectTimeoutMillis;
  private final RequestPaths paths;
  private final int streamWindow;
  private final int maxHeaderList;
  private final LongConsumer rttListener;

  private Http2ClientTransport(
      String host,
      int port,
      EventLoopGroup group,
      SslContext ssl,
      int connectTimeoutMillis,
      RequestPaths paths,
      int streamWindow,
      int maxHeaderList,
      LongConsumer rttListener) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.ssl = ssl;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.paths = paths;
    this.streamWindow = streamWindow;
    this.maxHeaderList = maxHeaderList;
    this.rttListener = rttListener;
  }

  /** Connects to {@code host:port}. */
  public static Http2ClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new Http2ClientTransport(
        Objects.requireNonNull(host, "host"), port, null, null, 10_000, RequestPaths.RSOCKET,
        Http2Options.DEFAULT_STREAM_WINDOW, Http2Options.DEFAULT_MAX_HEADER_LIST, null);
  }

  /** Connects to {@code address}. */
  public static Http2ClientTransport create(InetSocketAddress address) {
    return create(address.getHostString(), address.getPort());
  }

  /** Uses {@code group} instead of the shared default group. */
  public Http2ClientTransport withEventLoopGroup(EventLoopGroup group) {
    return new Http2ClientTransport(
        host, port, Objects.requireNonNull(group, "group"), ssl, connectTimeoutMillis, paths,
        streamWindow, maxHeaderList, rttListener);
  }

  /**
   * Speaks TLS with {@code ssl}, a client context that offers ALPN {@code h2} ({@code
   * Tls.client()...alpn("h2")}); a server that does not choose {@code h2} fails the connect.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public Http2ClientTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.client()...alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new Http2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, paths, streamWindow, maxHeaderList, rttListener);
  }

  /** Longest a connect (TLS handshake included) may take before it fails (default 10 s). */
  public Http2ClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new Http2ClientTransport(
        host, port, group, ssl, millis, paths, streamWindow, maxHeaderList, rttListener);
  }

  /** Picks each request's {@code :path} (default {@link RequestPaths#RSOCKET}). */
  public Http2ClientTransport withPaths(RequestPaths paths) {
    return new Http2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, Objects.requireNonNull(paths, "paths"),
        streamWindow, maxHeaderList, rttListener);
  }

  /** The receive window of each stream (65535..2^31-1 bytes, default 1 MiB). */
  public Http2ClientTransport withStreamWindowSize(int bytes) {
    return new Http2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, paths, Http2Options.checkWindow(bytes),
        maxHeaderList, rttListener);
  }

  /**
   * Called on the connection's event loop with each keepalive PING's round-trip time in
   * nanoseconds. Must not block.
   */
  public Http2ClientTransport withKeepAliveRttListener(LongConsumer listener) {
    return new Http2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, paths, streamWindow, maxHeaderList,
        Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    H2Connector.Target target =
        new H2Connector.Target(
            group, host, port, ssl, connectTimeoutMillis, Http2Options.limits(0, streamWindow, maxHeaderList, false));
    StreamMapping.ClientRequest request =
        new StreamMapping.ClientRequest(
            target.scheme(), target.authority(), (type, metadata) -> paths.path(interaction(type), metadata));
    CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
    H2Connector.connect(
        target,
        "the server at " + host + ":" + port,
        new H2Connector.Outcome() {
          @Override
          public void onHttp2(H2Handler handler) {
            result.complete(StreamMapping.client(handler, request, rttListener));
          }

          @Override
          public void onFailure(Throwable cause) {
            result.completeExceptionally(cause);
          }
        });
    return result;
  }

  private static RequestPaths.Interaction interaction(int type) {
    CharSequence p = MappingWire.pathOf(type);
    if (p == MappingWire.PATH_FNF) {
      return RequestPaths.Interaction.FIRE_AND_FORGET;
    }
    if (p == MappingWire.PATH_RESPONSE) {
      return RequestPaths.Interaction.REQUEST_RESPONSE;
    }
    if (p == MappingWire.PATH_STREAM) {
      return RequestPaths.Interaction.REQUEST_STREAM;
    }
    return RequestPaths.Interaction.REQUEST_CHANNEL;
  }

  @Override
  public String toString() {
    return (ssl != null ? "h2" : "h2c") + " client " + host + ":" + port;
  }
}
