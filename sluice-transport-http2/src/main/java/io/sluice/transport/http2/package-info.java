/**
 * RSocket over HTTP/2, and the HTTP/2 connection every HTTP/2 protocol here runs on. {@link
 * io.sluice.transport.http2.Http2ServerTransport} and {@link
 * io.sluice.transport.http2.Http2ClientTransport} carry each RSocket stream on an HTTP/2 stream of
 * its own (the stream mapping, docs/http2-stream-mapping.md), h2c or TLS with ALPN {@code h2};
 * {@link io.sluice.transport.http2.WebSocketOverHttp2ServerTransport} and its client carry
 * RSocket connections on RFC 8441 WebSocket streams. {@link io.sluice.transport.http2.HttpRoutes}
 * is how another protocol's module (gRPC, gRPC-Web, HTTP/JSON) plugs its requests into a server's
 * HTTP connections without owning them.
 */
package io.sluice.transport.http2;
