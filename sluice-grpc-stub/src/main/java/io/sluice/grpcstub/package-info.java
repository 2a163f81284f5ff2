/**
 * The gRPC {@link io.grpc.stub.StreamObserver} API over the core's streams, with gRPC's own flow
 * control ({@link io.grpc.stub.ClientCallStreamObserver}/{@link
 * io.grpc.stub.ServerCallStreamObserver}: {@code isReady}, {@code setOnReadyHandler}, {@code
 * request(n)}, {@code disableAutoRequest}) mapped onto RSocket request-n. Depends on grpc-stub and
 * grpc-api only (no gRPC transport). Start with {@link io.sluice.grpcstub.GrpcClient} and {@link
 * io.sluice.grpcstub.GrpcServer}.
 */
package io.sluice.grpcstub;
