/**
 * gRPC on the wire: {@link io.sluice.transport.grpc.GrpcServer} serves Sluice RPC services over
 * gRPC's HTTP/2 protocol, so stock gRPC clients (grpc-java, grpc-go, grpcurl, ...) call them
 * directly; {@link io.sluice.transport.grpc.GrpcServices} says what is served and how, also on
 * another server's HTTP connections ({@link io.sluice.transport.grpc.GrpcServices#httpRoutes()},
 * for the multiprotocol server's one port). Connections, TLS, resets and shutdown are
 * sluice-transport-http2's connection layer; this module adds gRPC's streams. See
 * docs/guide/grpc.md. The other way round, {@link
 * io.sluice.transport.grpc.GrpcClientTransport} connects to any gRPC server over HTTP/2 (h2c or
 * TLS) and gives a {@link io.sluice.transport.grpc.GrpcChannel}, the {@link io.sluice.Requester}
 * Sluice's generated RPC clients of every flavor call through (docs/guide/grpc.md).
 */
package io.sluice.transport.grpc;
