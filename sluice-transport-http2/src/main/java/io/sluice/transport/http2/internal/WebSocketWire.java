package io.sluice.transport.http2.internal;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * The headers of WebSocket over HTTP/2 (RFC 8441): the client's extended CONNECT and the names
 * both sides read. Constants only.
 */
public final class WebSocketWire {
  private WebSocketWire() {}

  /** The pseudo-header that makes a CONNECT an extended CONNECT. */
  public static final AsciiString PROTOCOL = Http2Headers.PseudoHeaderName.PROTOCOL.value();
  /** The protocol of WebSocket over HTTP/2. */
  public static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
  /** The WebSocket version, sent and checked as on HTTP/1.1 (RFC 8441 section 5). */
  public static final AsciiString VERSION_13 = AsciiString.cached("13");
  /** Why a request was refused, in the refusal's headers (as for the stream mapping). */
  public static final AsciiString REASON = AsciiString.cached("sluice-reason");

  /** The extended CONNECT of a client. */
  public static Http2Headers connectRequest(CharSequence scheme, CharSequence authority, CharSequence path) {
    return new DefaultHttp2Headers(false, 6)
        .method(HttpMethod.CONNECT.asciiName())
        .set(PROTOCOL, WEBSOCKET)
        .scheme(scheme)
        .authority(authority)
        .path(path)
        .set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, VERSION_13);
  }
}
