/**
 * gRPC's standard health checking ({@link io.sluice.rpc.services.HealthService}, {@code
 * grpc.health.v1.Health}) and server reflection ({@link io.sluice.rpc.services.ReflectionService},
 * {@code grpc.reflection.v1.ServerReflection} and {@code v1alpha}) as ordinary Sluice RPC services:
 * add them to a {@link io.sluice.rpc.ServiceRegistry} and they answer over every transport that
 * serves it (RSocket today; the gRPC wire when it serves a registry), so grpcurl, grpc-health-probe
 * and Kubernetes gRPC probes can use them.
 *
 * <p>The message and descriptor classes are generated at build time from the official {@code
 * .proto} files of grpc-java's {@code io.grpc:grpc-services} jar by protoc and protoc-gen-sluice,
 * into {@code io.sluice.rpc.services.grpc.*} (only the Java package differs from grpc-java's, so
 * both can share a class path). The handlers are written against the flavor-neutral call model of
 * {@code io.sluice.rpc}.
 */
package io.sluice.rpc.services;
