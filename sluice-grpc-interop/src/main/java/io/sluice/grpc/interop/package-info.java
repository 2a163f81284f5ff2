/**
 * gRPC interop with Sluice-generated stubs: {@code grpc.testing.TestService} (the service of
 * grpc-java's {@code grpc-interop-testing}, whose protos are compiled here with protoc and
 * protoc-gen-sluice, flavor {@code grpc}) served by {@link io.sluice.grpc.interop.TestServiceImpl},
 * and grpc-java's interop client cases re-implemented with the generated client stubs ({@link
 * io.sluice.grpc.interop.InteropClient}). Both work over any {@link io.sluice.Requester} and any
 * transport that serves a {@link io.sluice.rpc.ServiceRegistry}: RSocket today ({@link
 * io.sluice.grpc.interop.InteropRsocket}), the gRPC wire transports when they land.
 */
package io.sluice.grpc.interop;
