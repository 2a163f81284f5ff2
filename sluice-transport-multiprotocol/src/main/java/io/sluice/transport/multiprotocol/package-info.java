/**
 * One port for every transport: {@link
 * io.sluice.transport.multiprotocol.MultiProtocolServerTransport} tells RSocket over TCP, TLS,
 * WebSocket (HTTP/1.1 upgrade) and HTTP/2 apart by each connection's first bytes and hands the
 * connection to that transport's own handlers: HTTP/2 connections to sluice-transport-http2's
 * connection layer (the stream mapping, WebSocket over HTTP/2, and the {@link
 * io.sluice.transport.http2.HttpRoutes} plugged in with {@code withHttpRoutes}, such as gRPC's).
 * It does not depend on sluice-transport-grpc: the application composes the two.
 */
package io.sluice.transport.multiprotocol;
