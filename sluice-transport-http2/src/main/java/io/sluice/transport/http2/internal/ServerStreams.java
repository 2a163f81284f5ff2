package io.sluice.transport.http2.internal;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.transport.DuplexTransport;
import java.util.function.Consumer;

/**
 * The router of a server's HTTP/2 connection: picks who serves each new stream from its request
 * headers: the stream mapping ({@code content-type: application/rsocket+http2}) and WebSocket
 * over HTTP/2 (extended CONNECT, {@code :protocol websocket}: see {@link WebSocketAcceptor}), and
 * the requests another protocol {@link Route claims} by their headers (gRPC, by its content
 * type). A request
 * nobody serves is answered with headers only: 405 (not POST), 415 (another content type) or 404
 * (an unknown {@code /rsocket/...} path).
 *
 * <p>The mapping's transport (one per connection, one RSocket connection for all its streams) is
 * made, and handed to the server's engine, when the client's preface arrives or when the
 * connection's first mapped stream does (see the constructor).
 */
public final class ServerStreams implements H2Handler.Router {
  /**
   * Serves the requests of another protocol on the same connections (gRPC, say): asked first for
   * every well-formed request that is not an extended CONNECT.
   */
  public interface Route {
    /** True when this route serves a request with these headers. */
    boolean claims(Http2Headers headers);

    /** As {@link H2Handler.Router#route}, for a request it {@link #claims}. */
    H2Handler.StreamSink route(H2Handler handler, Http2Stream stream, Http2Headers headers, boolean endStream);
  }

  private final Consumer<DuplexTransport> onConnection;
  private final boolean eager;
  private StreamMapping mapping;
  /** WebSocket over HTTP/2: the server's acceptor (null: not served), this connection's streams. */
  private final WebSocketAcceptor webSocketAcceptor;
  private WebSocketStreams webSockets;
  private final Route route;

  /**
   * @param eager make the mapping's connection when the client's preface arrives (a server of the
   *     mapping only: its engine then exists from the start, as on any transport), instead of
   *     when the first mapped stream does (a server of several protocols)
   */
  public ServerStreams(Consumer<DuplexTransport> onConnection, boolean eager) {
    this(onConnection, eager, null);
  }

  /**
   * Also routes extended CONNECT ({@code :method CONNECT}, RFC 8441) to {@code webSockets}; with a
   * null {@code onConnection} the stream mapping is not served (its requests get 404).
   */
  public ServerStreams(
      Consumer<DuplexTransport> onConnection, boolean eager, WebSocketAcceptor webSockets) {
    this(onConnection, eager, webSockets, null);
  }

  /** Also serves the requests {@code route} (null: none) claims. */
  public ServerStreams(
      Consumer<DuplexTransport> onConnection, boolean eager, WebSocketAcceptor webSockets, Route route) {
    this.onConnection = onConnection;
    this.eager = eager && onConnection != null;
    this.webSocketAcceptor = webSockets;
    this.route = route;
  }

  @Override
  public void onPreface(H2Handler handler) {
    if (eager && mapping == null) {
      startMapping(handler);
    }
  }

  private void startMapping(H2Handler handler) {
    mapping = StreamMapping.server(handler);
    onConnection.accept(mapping);
  }

  @Override
  public H2Handler.StreamSink route(
      H2Handler handler, Http2Stream stream, Http2Headers headers, boolean endStream) {
    boolean connect = HttpMethod.CONNECT.asciiName().contentEquals(headers.method());
    if (headers.method() == null || (!connect && (headers.path() == null || headers.scheme() == null))) {
      // RFC 9113 8.3.1: malformed, a stream error of type PROTOCOL_ERROR (counted by netty's
      // limit on RST_STREAM sent, unlike the NO_ERROR that ends a 4xx answer). A CONNECT has its
      // own rules (RFC 9113 8.5, RFC 8441), which its acceptor checks.
      handler.encoder().writeRstStream(handler.ctx(), stream.id(), Http2Error.PROTOCOL_ERROR.code(), handler.newPromise());
      handler.flushNow();
      return null;
    }
    if (route != null && !connect && route.claims(headers)) {
      return route.route(handler, stream, headers, endStream);
    }
    if (webSocketAcceptor != null && connect) {
      if (webSockets == null) {
        webSockets = new WebSocketStreams(handler);
      }
      return webSocketAcceptor.accept(handler, webSockets, stream, headers, endStream);
    }
    if (onConnection == null) {
      H2Answers.respondAndEnd(handler, stream, 404, "only WebSocket over HTTP/2 (extended CONNECT) is served here");
      return null;
    }
    if (!MappingWire.isMappingContentType(headers.get(HttpHeaderNames.CONTENT_TYPE))) {
      H2Answers.respondAndEnd(handler, stream, 415, "content-type must be " + MappingWire.CONTENT_TYPE);
      return null;
    }
    if (!HttpMethod.POST.asciiName().contentEquals(headers.method())) {
      H2Answers.respondAndEnd(handler, stream, 405, "method must be POST");
      return null;
    }
    CharSequence path = headers.path();
    int pathKind = path == null || path.length() == 0 || path.charAt(0) != '/' ? -1 : MappingWire.typeOfPath(path);
    if (pathKind < 0) {
      H2Answers.respondAndEnd(handler, stream, 404, "no such path");
      return null;
    }
    if (mapping == null) {
      startMapping(handler);
    }
    if (mapping.isClosed()) {
      H2Answers.respondAndEnd(handler, stream, 503, "the connection is closing");
      return null;
    }
    return mapping.accept(stream, pathKind);
  }
}
