package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

  /** Over gRPC too, a service may opt in to sending its handlers' exception text. */
  @Test
  void aServiceThatOptsInSendsTheExceptionText() throws Exception {
    GrpcServer.Running exposing =
        GrpcServer.create("127.0.0.1", 0).withServices(GrpcWebTest.exposing(new EchoService())).start();
    ManagedChannel c = channel(exposing.port());
    try {
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () -> ClientCalls.blockingUnaryCall(c, UNARY, CallOptions.DEFAULT, StringValue.of("throw")));
      assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNKNOWN);
      assertThat(e.getStatus().getDescription()).isEqualTo("boom");
    } finally {
      c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      exposing.close();
      exposing.onClose().get();
    }
  }

  @Override
  void stopServer() throws Exception {
    server.close();
    server.onClose().get();
  }
}
