/**
 * RSocket over WebSocket (RFC 6455), server and client, built on netty: one RSocket frame per
 * binary WebSocket message, without a length prefix, as rsocket-java and rsocket-js speak it.
 * Start with {@link io.sluice.transport.websocket.WebSocketServerTransport} and {@link
 * io.sluice.transport.websocket.WebSocketClientTransport}.
 */
package io.sluice.transport.websocket;
