/**
 * The gRPC wire, shared by Sluice's gRPC server and client: message framing with limits and gzip
 * ({@link io.sluice.transport.grpc.internal.MessageDeframer}, {@link
 * io.sluice.transport.grpc.internal.MessageFramer}, {@link
 * io.sluice.transport.grpc.internal.GrpcEncoding}), {@code grpc-timeout} ({@link
 * io.sluice.transport.grpc.internal.GrpcTimeout}), {@code grpc-message} percent-encoding ({@link
 * io.sluice.transport.grpc.internal.StatusMessages}) and metadata ({@link
 * io.sluice.transport.grpc.internal.GrpcMetadata}); and the server's per-stream call. Internal:
 * not an API, may change in any release.
 */
package io.sluice.transport.grpc.internal;
