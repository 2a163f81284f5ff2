/**
 * Internal: Sluice's gRPC client. {@link io.sluice.transport.grpc.internal.client.ClientConnection}
 * holds one HTTP/2 connection to a gRPC server, {@link
 * io.sluice.transport.grpc.internal.client.ClientCall} one call on it (an HTTP/2 stream mapped onto
 * the {@link io.sluice.StreamHandle} / {@link io.sluice.StreamListener} contract), {@link
 * io.sluice.transport.grpc.internal.client.RequestHeaders} its request HEADERS and {@link
 * io.sluice.transport.grpc.internal.client.ResponseStatus} the {@link io.sluice.rpc.Status} its
 * response ends with. Not an API.
 */
package io.sluice.transport.grpc.internal.client;
