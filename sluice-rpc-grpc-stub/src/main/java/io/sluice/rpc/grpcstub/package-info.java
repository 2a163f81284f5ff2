/**
 * gRPC StreamObserver flavor of Sluice RPC ({@code --sluice_opt=flavor=grpc}): glue for generated
 * {@code Grpc<Service>} (service interface whose methods default to UNIMPLEMENTED), {@code
 * Grpc<Service>ImplBase}, {@code Grpc<Service>Client} (async stub) and {@code Grpc<Service>Server},
 * with grpc-java's method shapes over Sluice's RSocket-based wire format.
 */
package io.sluice.rpc.grpcstub;
