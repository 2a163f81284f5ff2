/**
 * RSocket over HTTP/2: {@link io.sluice.transport.http2.Http2ServerTransport} and {@link
 * io.sluice.transport.http2.Http2ClientTransport} carry each RSocket stream on an HTTP/2 stream of
 * its own (the stream mapping, docs/http2-stream-mapping.md), h2c or TLS with ALPN {@code h2}.
 */
package io.sluice.transport.http2;
