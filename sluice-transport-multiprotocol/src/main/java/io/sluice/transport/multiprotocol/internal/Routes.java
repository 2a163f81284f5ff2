package io.sluice.transport.multiprotocol.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.http2.HttpRoutes;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.http2.internal.ServerStreams;
import io.sluice.transport.http2.internal.WebSocketAcceptor;
import io.sluice.transport.http2.internal.H2KeepAlive;
import io.sluice.transport.http2.internal.WriteStallGuard;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import io.sluice.transport.netty.internal.SnugTlsRecords;
import io.sluice.transport.websocket.internal.ServerUpgradeHandler;
import io.sluice.transport.websocket.internal.UpgradeSettings;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What a bound multiprotocol server does with each connection: starts its {@link
 * DetectionDeadline} and its {@link ProtocolDetector} on accept, and, once the protocol is known,
 * puts that protocol's handlers, the same ones its own server transport uses, at the end of the
 * pipeline. Immutable; one per bound server, shared by its connections. Every method runs on the
 * connection's event loop.
 */
public final class Routes {
  private final SslContext ssl;
  private final UpgradeSettings webSocket;
  private final H2Handler.Limits http2;
  private final Duration detectionTimeout;
  private final Consumer<DuplexTransport> onConnection;
  private final HttpRoutes routes;
  /** WebSocket over HTTP/2: one acceptor for every connection, stopped when the server stops. */
  private final WebSocketAcceptor webSockets;
  private final HttpServerConnections connections;

  /**
   * @param ssl the server's TLS context, or null to refuse TLS (its ClientHello is then garbage)
   * @param webSocket the WebSocket upgrade's path, limits and timeout
   * @param http2 the HTTP/2 settings and limits
   * @param detectionTimeout from accept to a known protocol (TLS handshake included)
   * @param onConnection gets each RSocket connection's transport
   */
  public Routes(
      SslContext ssl,
      UpgradeSettings webSocket,
      H2Handler.Limits http2,
      Duration detectionTimeout,
      Consumer<DuplexTransport> onConnection) {
    this(ssl, webSocket, http2, detectionTimeout, onConnection, null);
  }

  /**
   * As above, and the requests of {@code routes} (null: none) served too: on HTTP/2 connections
   * those they claim, on HTTP/1.1 the connections whose first request they serve (gRPC, gRPC-Web
   * and HTTP/JSON, say).
   */
  public Routes(
      SslContext ssl,
      UpgradeSettings webSocket,
      H2Handler.Limits http2,
      Duration detectionTimeout,
      Consumer<DuplexTransport> onConnection,
      HttpRoutes routes) {
    this.routes = routes;
    this.ssl = ssl;
    this.webSocket = webSocket;
    this.http2 = http2;
    this.detectionTimeout = detectionTimeout;
    this.onConnection = onConnection;
    this.webSockets = new WebSocketAcceptor(webSocket.path(), webSocket.allowedOrigins(), onConnection);
    this.connections = new HttpServerConnections(Routes::undecided);
    if (routes != null) {
      routes.countConnections(connections::size); // the console's figures, when it has one
    }
  }

  /**
   * A connection whose protocol is not known yet (still detecting, in its TLS handshake, or
   * before the head of its first HTTP/1.1 request).
   */
  static boolean undecided(Channel ch) {
    ChannelPipeline p = ch.pipeline();
    return p.get(ProtocolDetector.class) != null || p.get(AlpnRouter.class) != null || p.get(Http1Split.class) != null;
  }

  /**
   * The server stopped listening: new WebSocket over HTTP/2 CONNECTs are refused, and the client
   * of every HTTP/2 connection is told to open no more streams (GOAWAY); what is open goes on.
   */
  public void stopAccepting() {
    webSockets.stop();
    connections.goAway();
  }

  /**
   * Stops the connections served here rather than by the engine (see {@link
   * HttpServerConnections}): HTTP/2 ones once their streams have ended, HTTP/1.1 gRPC-Web ones
   * once their response is over, undecided ones at once; what is left after {@code grace} is cut.
   */
  public CompletableFuture<Void> stop(Duration grace) {
    stopAccepting();
    return connections.stop(grace);
  }

  /** See {@code MultiProtocolServerTransport.withWriteStallTimeout}; set before the bind. */
  private Duration writeStallTimeout = Duration.ofSeconds(30);

  /** The write stall timeout of the connections other routes may serve (with routes only). */
  public void writeStallTimeout(Duration timeout) {
    this.writeStallTimeout = timeout;
  }

  /** With other routes: the connection may be theirs, whose peers no RSocket engine watches. */
  private void guardIfRoutes(ChannelHandlerContext ctx) {
    if (routes != null && ctx.pipeline().get(WriteStallGuard.NAME) == null) {
      WriteStallGuard.install(ctx.channel(), writeStallTimeout);
    }
  }

  /** The accepted {@code channel}'s first handler (autoRead must be off). */
  public void init(Channel channel) {
    connections.add(channel);
    DetectionDeadline deadline = DetectionDeadline.start(channel, detectionTimeout);
    channel.pipeline().addLast(new ProtocolDetector(this, deadline, false));
  }

  /** RSocket frames behind u24 lengths: the TCP transport's connection, started by the engine. */
  void rsocket(ChannelHandlerContext ctx, DetectionDeadline deadline) {
    deadline.settle(); // the engine's setup timeout takes over
    NettyDuplexTransport transport = new NettyDuplexTransport(ctx.channel());
    ctx.pipeline().addLast(transport);
    // It keeps the bytes the detector hands it until the engine starts it (autoRead stays off).
    onConnection.accept(transport);
  }

  /** A TLS ClientHello: the handshake, then {@link AlpnRouter} (or garbage, without a context). */
  void tls(ChannelHandlerContext ctx, DetectionDeadline deadline) {
    if (ssl == null) {
      ctx.close();
      return;
    }
    ChannelPipeline p = ctx.pipeline();
    SnugTlsRecords.add(p, ssl.newHandler(ctx.alloc()));
    p.addLast(new AlpnRouter(this, deadline));
  }

  /**
   * An HTTP/1.x request: the WebSocket server's upgrade handling (404 or 426 for the rest); with
   * other routes served, the first request's head decides ({@link Http1Split}) whether they serve
   * the connection instead.
   */
  void http1(ChannelHandlerContext ctx, DetectionDeadline deadline) {
    ChannelPipeline p = ctx.pipeline();
    p.addLast(ServerUpgradeHandler.newDecoder(webSocket));
    guardIfRoutes(ctx); // taken off again if the connection turns out to be a WebSocket
    if (routes != null) {
      p.addLast(new Http1Split(this, deadline, routes));
    } else {
      deadline.settle(); // the upgrade timeout takes over
      p.addLast(new ServerUpgradeHandler(webSocket, onConnection));
    }
    // It asks for reads itself once it has seen bytes; ask for the first in case none are held.
    ctx.channel().read();
  }

  /** The WebSocket upgrade handling behind the request decoder (its request comes next). */
  void webSocketUpgrade(ChannelHandlerContext ctx) {
    if (ctx.pipeline().get(WriteStallGuard.NAME) != null) {
      ctx.pipeline().remove(WriteStallGuard.NAME); // an RSocket connection: its engine watches it
    }
    ctx.pipeline().addLast(new ServerUpgradeHandler(webSocket, onConnection));
  }

  /**
   * HTTP/2: the HTTP/2 server's handler (the stream mapping, WebSocket over HTTP/2 on the
   * WebSocket path, and the other routes when they are served), whose router makes the stream mapping's RSocket
   * connection when the first mapped stream arrives (so a connection that carries only other
   * kinds of streams never makes one). The deadline stays until the client's preface (its first
   * SETTINGS) has been read.
   */
  void http2(ChannelHandlerContext ctx, DetectionDeadline deadline) {
    guardIfRoutes(ctx);
    if (routes != null) {
      // gRPC and the other routes have no keepalive of their own (an RSocket connection's client
      // sends its KEEPALIVE frames, so the connection is never silent and no PING goes to it).
      H2KeepAlive.install(ctx.channel(), H2KeepAlive.DEFAULT_TIME, H2KeepAlive.DEFAULT_TIMEOUT);
    }
    // The stream mapping, and WebSocket over HTTP/2 (RFC 8441) on the WebSocket path.
    H2Handler h2 = H2Handler.build(true, http2, new ServerStreams(onConnection, false, webSockets, routes == null ? null : routes.http2()));
    deadline.settleWhen(() -> h2.decoder().prefaceReceived());
    ctx.pipeline().addLast(h2);
    ctx.channel().config().setAutoRead(true); // as the HTTP/2 server transport runs it
  }

  /** After the TLS handshake, by ALPN: HTTP/2, HTTP/1.1, or the first decrypted bytes decide. */
  void afterTls(ChannelHandlerContext ctx, String protocol, DetectionDeadline deadline) {
    switch (protocol) {
      case AlpnRouter.H2:
        http2(ctx, deadline);
        break;
      case AlpnRouter.HTTP_1_1:
        http1(ctx, deadline);
        break;
      default:
        ctx.pipeline().addLast(new ProtocolDetector(this, deadline, true));
        ctx.channel().read();
    }
  }
}
