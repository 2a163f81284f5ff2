package io.sluice.transport.http2;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.http2.internal.WebSocketConnector;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to a {@link WebSocketOverHttp2ServerTransport} (or any server of RSocket over WebSocket
 * over HTTP/2, RFC 8441): each {@link #connect()} opens an extended CONNECT stream ({@code :method
 * CONNECT}, {@code :protocol websocket}) that becomes one RSocket connection, framed exactly as on
 * the WebSocket transport (one RSocket frame per binary message, masked by the client).
 *
 * <p><b>One TCP connection, many RSocket connections.</b> The connections one instance makes share
 * one TCP + HTTP/2 connection; another is opened when the shared one is closed or going away
 * (GOAWAY), or carries as many streams as the server allows (its SETTINGS_MAX_CONCURRENT_STREAMS).
 * A TCP connection is closed when its last RSocket connection has closed. Each RSocket connection
 * is independent: its own SETUP and keepalive, its own flow-control window (one that stops reading
 * does not stall the others), and closing it ends its stream only. Each {@code with*} returns a new
 * instance, which shares nothing with this one.
 *
 * <p>A connect fails with a {@link java.net.ProtocolException} if the server's SETTINGS do not
 * enable extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL; an HTTP/2 server that does not serve
 * WebSocket over HTTP/2) or it answers the CONNECT with anything but 200 (404 for another path,
 * say); with the socket's exception if nothing listens. h2c with prior knowledge, or TLS with ALPN
 * {@code h2} ({@link #withSsl}).
 */
public final class WebSocketOverHttp2ClientTransport implements ClientTransport {
  /** TCP connections' stream windows per connection window (see {@link #withStreamWindowSize}). */
  private static final int WINDOWED_STREAMS = 256;

  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final SslContext ssl;
  private final int connectTimeoutMillis;
  private final String path;
  private final int streamWindow;
  private final int maxHeaderList;
  private final WebSocketConnector connector;

  private WebSocketOverHttp2ClientTransport(
      String host,
      int port,
      EventLoopGroup group,
      SslContext ssl,
      int connectTimeoutMillis,
      String path,
      int streamWindow,
      int maxHeaderList) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.ssl = ssl;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.path = path;
    this.streamWindow = streamWindow;
    this.maxHeaderList = maxHeaderList;
    this.connector =
        new WebSocketConnector(
            new WebSocketConnector.Target(
                host, port, group, ssl, connectTimeoutMillis, path,
                Http2Options.webSocketLimits(0, WINDOWED_STREAMS, streamWindow, maxHeaderList)));
  }

  /** Connects to {@code host:port}, path {@code /}. */
  public static WebSocketOverHttp2ClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new WebSocketOverHttp2ClientTransport(
        Objects.requireNonNull(host, "host"), port, null, null, 10_000, "/",
        Http2Options.DEFAULT_STREAM_WINDOW, Http2Options.DEFAULT_MAX_HEADER_LIST);
  }

  /** Connects to {@code address}, path {@code /}. */
  public static WebSocketOverHttp2ClientTransport create(InetSocketAddress address) {
    return create(address.getHostString(), address.getPort());
  }

  /** The {@code :path} of the CONNECT (default {@code /}); may carry a query. */
  public WebSocketOverHttp2ClientTransport withPath(String path) {
    return new WebSocketOverHttp2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, WebSocketOverHttp2ServerTransport.checkPath(path),
        streamWindow, maxHeaderList);
  }

  /** Uses {@code group} instead of the shared default group. */
  public WebSocketOverHttp2ClientTransport withEventLoopGroup(EventLoopGroup group) {
    return new WebSocketOverHttp2ClientTransport(
        host, port, Objects.requireNonNull(group, "group"), ssl, connectTimeoutMillis, path, streamWindow,
        maxHeaderList);
  }

  /**
   * Speaks TLS with {@code ssl}, a client context that offers ALPN {@code h2} ({@code
   * Tls.client()...alpn("h2")}); a server that does not choose {@code h2} fails the connect.
   *
   * @throws IllegalArgumentException if {@code ssl} does not offer {@code h2}
   */
  public WebSocketOverHttp2ClientTransport withSsl(SslContext ssl) {
    Objects.requireNonNull(ssl, "ssl");
    if (!ssl.applicationProtocolNegotiator().protocols().contains(ApplicationProtocolNames.HTTP_2)) {
      throw new IllegalArgumentException(
          "the TLS context must offer ALPN \"h2\" (Tls.client()...alpn(\"h2\")), offers "
              + ssl.applicationProtocolNegotiator().protocols());
    }
    return new WebSocketOverHttp2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, path, streamWindow, maxHeaderList);
  }

  /**
   * Longest the opening of a TCP connection may take (TLS handshake and the server's SETTINGS
   * included) before the connects waiting for it fail (default 10 s); also the longest a connect
   * waits, from its start, for the server's answer to its CONNECT: past it the connect fails with
   * a {@link java.net.ProtocolException}, its stream is reset, and that TCP connection takes no
   * new streams (it closes once its other streams have).
   */
  public WebSocketOverHttp2ClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new WebSocketOverHttp2ClientTransport(
        host, port, group, ssl, millis, path, streamWindow, maxHeaderList);
  }

  /**
   * The receive window of each stream (65535..2^31-1 bytes, default 1 MiB): what the server may
   * send to an RSocket connection that stopped reading. The TCP connection's window is 256 of them
   * (capped at 2^31-1 bytes).
   */
  public WebSocketOverHttp2ClientTransport withStreamWindowSize(int bytes) {
    return new WebSocketOverHttp2ClientTransport(
        host, port, group, ssl, connectTimeoutMillis, path, Http2Options.checkWindow(bytes), maxHeaderList);
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    return connector.connect();
  }

  /** TCP connections this instance has open (or opening) now; for tests and diagnostics. */
  public int openTcpConnections() {
    return connector.connections();
  }

  @Override
  public String toString() {
    return "ws-h2" + (ssl != null ? "" : "c") + " client " + host + ":" + port + path;
  }
}
