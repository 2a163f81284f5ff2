/**
 * gRPC on the wire. The client: {@link io.sluice.transport.grpc.GrpcClientTransport} connects to
 * any gRPC server over HTTP/2 (h2c or TLS) and gives a {@link io.sluice.transport.grpc.GrpcChannel},
 * the {@link io.sluice.Requester} Sluice's generated RPC clients of every flavor call through.
 */
package io.sluice.transport.grpc;
