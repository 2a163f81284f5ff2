/**
 * Internal: the one HTTP/2 connection layer and the stream protocols on it. Not an API.
 *
 * <ul>
 *   <li>Per connection: {@link io.sluice.transport.http2.internal.H2Handler} (SETTINGS and limits
 *       from {@link io.sluice.transport.http2.internal.Http2Options}, the reset and flood policy,
 *       flush scheduling, PING, GOAWAY, listeners), {@link
 *       io.sluice.transport.http2.internal.AlpnH2} (TLS with ALPN {@code h2}), {@link
 *       io.sluice.transport.http2.internal.H2Connector} (every client's connect: bootstrap, TLS
 *       with the server's name, ALPN, one deadline) and {@link
 *       io.sluice.transport.http2.internal.HttpServerConnections} (every server's stop: GOAWAY,
 *       streams finish within the grace, then the close).
 *   <li>Per stream, chosen by path and content type ({@link
 *       io.sluice.transport.http2.internal.ServerStreams}): the stream mapping ({@link
 *       io.sluice.transport.http2.internal.StreamMapping} with its {@code OutboundCutter}, {@code
 *       StreamRules}, {@code InboundReassembler}, {@code RequestOpener} and {@code
 *       MappingConnectionEvents}), RFC 8441 WebSocket ({@link
 *       io.sluice.transport.http2.internal.WebSocketAcceptor}, {@link
 *       io.sluice.transport.http2.internal.WebSocketConnector}), and the routes of other modules
 *       ({@link io.sluice.transport.http2.internal.ServerStreams.Route}: gRPC, gRPC-Web, JSON).
 * </ul>
 */
package io.sluice.transport.http2.internal;
