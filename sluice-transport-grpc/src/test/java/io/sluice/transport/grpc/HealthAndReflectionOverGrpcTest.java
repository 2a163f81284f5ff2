package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.services.HealthService;
import io.sluice.rpc.services.ReflectionService;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Sluice's health and reflection services (sluice-rpc-services) served by {@link GrpcServer} and
 * called by grpc-java's own stubs for them, as grpc-health-probe and grpcurl would.
 */
class HealthAndReflectionOverGrpcTest {
  @Test
  void grpcJavaStubsCallSluiceHealthAndReflection() throws Exception {
    HealthService health = new HealthService();
    health.setStatus("sluice.test.Echo", ServingStatus.NOT_SERVING);
    ServiceRegistry registry = ReflectionService.withReflection(ServiceRegistry.builder().add(health).build());
    GrpcServer.Running server = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel);
      assertThat(stub.check(HealthCheckRequest.newBuilder().setService("").build()).getStatus())
          .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThat(stub.check(HealthCheckRequest.newBuilder().setService("sluice.test.Echo").build()).getStatus())
          .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);

      // Watch: the current status, then the change.
      Iterator<HealthCheckResponse> watch =
          stub.withDeadlineAfter(30, TimeUnit.SECONDS)
              .watch(HealthCheckRequest.newBuilder().setService("sluice.test.Echo").build());
      assertThat(watch.next().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
      health.setStatus("sluice.test.Echo", ServingStatus.SERVING);
      assertThat(watch.next().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

      CompletableFuture<List<String>> services = new CompletableFuture<>();
      StreamObserver<ServerReflectionRequest> req =
          ServerReflectionGrpc.newStub(channel)
              .serverReflectionInfo(
                  new StreamObserver<ServerReflectionResponse>() {
                    @Override
                    public void onNext(ServerReflectionResponse r) {
                      services.complete(
                          r.getListServicesResponse().getServiceList().stream()
                              .map(ServiceResponse::getName)
                              .collect(Collectors.toList()));
                    }

                    @Override
                    public void onError(Throwable t) {
                      services.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                  });
      req.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
      assertThat(services.get(30, TimeUnit.SECONDS))
          .contains("grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
      req.onCompleted();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.close();
      server.onClose().get();
    }
  }
}
