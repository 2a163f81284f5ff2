package io.sluice.transport.http2.internal;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.transport.DuplexTransport;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A server's side of WebSocket over HTTP/2 (RFC 8441): checks each extended CONNECT and makes the
 * stream an RSocket connection of its own ({@link WebSocketStream}, handed to {@code
 * onConnection}), answered {@code :status 200}. A CONNECT that is not one is answered with headers
 * only: 400 (no {@code :protocol}, no {@code :scheme}, {@code :path} or {@code :authority}, END_STREAM
 * on the request, a {@code sec-websocket-version} other than 13), 501 (a {@code :protocol} other
 * than {@code websocket}), 404 (another path; the query is not compared), 403 (an {@code origin}
 * outside the allow-list, when there is one; requests without {@code origin}, from clients other
 * than browsers, are let through). Once {@link #stop() stopped} (the server stopped listening),
 * new CONNECTs are reset with REFUSED_STREAM, which tells the client it may try elsewhere.
 *
 * <p>One per bound server, shared by its connections: immutable but for the stop flag.
 */
public final class WebSocketAcceptor {
  private final String path;
  private final Set<String> allowedOrigins;
  private final Consumer<DuplexTransport> onConnection;
  private volatile boolean stopped;

  /**
   * @param allowedOrigins lower-case origins accepted from browsers; null accepts any
   */
  public WebSocketAcceptor(String path, Set<String> allowedOrigins, Consumer<DuplexTransport> onConnection) {
    this.path = path;
    this.allowedOrigins = allowedOrigins;
    this.onConnection = onConnection;
  }

  /** New CONNECTs are refused from now on (streams already open go on). */
  public void stop() {
    stopped = true;
  }

  /** The sink of a new CONNECT stream, or null after answering it. */
  H2Handler.StreamSink accept(
      H2Handler h2, WebSocketStreams group, Http2Stream stream, Http2Headers headers, boolean endStream) {
    CharSequence protocol = headers.get(WebSocketWire.PROTOCOL);
    if (protocol == null) {
      H2Answers.respondAndEnd(h2, stream, 400, "only extended CONNECT with :protocol websocket (RFC 8441) is served");
      return null;
    }
    if (!WebSocketWire.WEBSOCKET.contentEqualsIgnoreCase(protocol)) {
      H2Answers.respondAndEnd(h2, stream, 501, "only :protocol websocket is served");
      return null;
    }
    CharSequence p = headers.path();
    if (p == null || p.length() == 0 || headers.scheme() == null || headers.authority() == null) {
      H2Answers.respondAndEnd(h2, stream, 400, "an extended CONNECT needs :scheme, :path and :authority");
      return null;
    }
    if (endStream) {
      H2Answers.respondAndEnd(h2, stream, 400, "an extended CONNECT with END_STREAM carries no WebSocket");
      return null;
    }
    CharSequence version = headers.get(HttpHeaderNames.SEC_WEBSOCKET_VERSION);
    if (version != null && !WebSocketWire.VERSION_13.contentEquals(version)) {
      H2Answers.respondAndEnd(h2, stream, 400, "sec-websocket-version must be 13");
      return null;
    }
    if (!new QueryStringDecoder(p.toString()).path().equals(path)) {
      H2Answers.respondAndEnd(h2, stream, 404, "no WebSocket is served at this path");
      return null;
    }
    CharSequence origin = headers.get(HttpHeaderNames.ORIGIN);
    if (allowedOrigins != null
        && origin != null
        && !allowedOrigins.contains(origin.toString().toLowerCase(Locale.ROOT))) {
      // A browser page from another site (cross-site WebSocket hijacking).
      H2Answers.respondAndEnd(h2, stream, 403, "origin not allowed");
      return null;
    }
    if (stopped) {
      h2.resetStream(h2.ctx(), stream.id(), Http2Error.REFUSED_STREAM.code(), h2.newPromise());
      h2.flushNow();
      return null;
    }
    h2.encoder().writeHeaders(h2.ctx(), stream.id(), new DefaultHttp2Headers(false, 1).status("200"), 0, false, h2.newPromise());
    h2.flushNow();
    WebSocketStream ws = WebSocketStream.server(h2, group, stream, () -> {});
    h2.attach(stream, ws); // before the engine hears of it, which may close it at once
    onConnection.accept(ws);
    return ws;
  }
}
