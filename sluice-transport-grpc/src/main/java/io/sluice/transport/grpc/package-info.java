/**
 * gRPC on the wire: {@link io.sluice.transport.grpc.GrpcServer} serves Sluice RPC services over
 * gRPC's HTTP/2 protocol, so stock gRPC clients (grpc-java, grpc-go, grpcurl, ...) call them
 * directly; {@link io.sluice.transport.grpc.GrpcServices} says what is served and how, also on the
 * multiprotocol server's one port. See docs/guide/grpc.md.
 */
package io.sluice.transport.grpc;
