package io.sluice.transport.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

/** grpc-java over h2c (prior knowledge) to a {@link GrpcServer}. */
class GrpcServerH2cTest extends GrpcJavaClientTest {
  private GrpcServer.Running server;

  @Override
  int startServer(EchoService service) {
    server = GrpcServer.create("127.0.0.1", 0).withServices(service.registry()).start();
    return server.port();
  }

  @Override
  ManagedChannel channel(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().maxInboundMessageSize(64 << 20).build();
  }

  @Override
  void stopServer() throws Exception {
    server.close();
    server.onClose().get();
  }
}
