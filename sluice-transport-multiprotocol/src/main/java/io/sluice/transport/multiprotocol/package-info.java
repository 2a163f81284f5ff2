/**
 * One port for every transport: {@link
 * io.sluice.transport.multiprotocol.MultiProtocolServerTransport} tells RSocket over TCP, TLS,
 * WebSocket (HTTP/1.1 upgrade) and the HTTP/2 stream mapping apart by each connection's first
 * bytes and hands the connection to that transport's own handlers.
 */
package io.sluice.transport.multiprotocol;
