package io.sluice.hostile;

/**
 * {@link GrpcHttp2AttacksTest} (the HTTP/2 attacks as gRPC calls, grpc-java the well-behaved
 * client) against the multiprotocol port with gRPC on ({@code
 * MultiProtocolServerTransport.withHttpRoutes}): its defaults but a short write-stall timeout.
 */
class MultiProtocolGrpcAttacksTest extends GrpcHttp2AttacksTest {
  @Override
  String[] serverOptions() {
    return new String[] {"transport=mpgrpc", PREFACE_TIMEOUT, DEADLINE_PREFACE_TIMEOUT, WRITE_STALL_TIMEOUT};
  }

  @Override
  String rowPrefix() {
    return "gRPC on the multiprotocol port: ";
  }
}
