package io.sluice.rpc.services;

import static io.sluice.rpc.services.Served.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckRequest;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.sluice.rpc.services.grpc.health.v1.ReactorHealthClient;
import io.sluice.rpc.services.grpc.reflection.v1.ReactorServerReflectionClient;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ServiceResponse;
import io.sluice.rpc.services.test.GreetRequest;
import io.sluice.rpc.services.test.Greeting;
import io.sluice.rpc.services.test.ReactorGreeter;
import io.sluice.rpc.services.test.ReactorGreeterServer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The code of docs/guide/grpc-services.md, run: health and reflection next to a service. */
class GrpcServicesGuideTest {
  private static final ReactorGreeter GREETER =
      new ReactorGreeter() {
        @Override
        public Mono<Greeting> greet(GreetRequest request) {
          return Mono.just(Greeting.newBuilder().setText("hello").build());
        }

        @Override
        public Flux<Greeting> greetMany(GreetRequest request) {
          return Flux.empty();
        }
      };

  @Test
  void healthAndReflectionNextToAService() throws Exception {
    // tag::enable[]
    HealthService health = new HealthService(); // "" (the whole server) is SERVING
    ServiceRegistry registry =
        ReflectionService.withReflection( // adds grpc.reflection.v1 and v1alpha
            ServiceRegistry.builder()
                .add(new ReactorGreeterServer(GREETER))
                .add(health)
                .build());
    health.setStatus(ReactorGreeter.SERVICE, ServingStatus.SERVING);
    // end::enable[]
    try (Served served = new Served(registry)) {
      // tag::probe[]
      ReactorHealthClient probe = new ReactorHealthClient(served.requester());
      ServingStatus status =
          probe.check(HealthCheckRequest.newBuilder().setService(ReactorGreeter.SERVICE).build())
              .block(WAIT)
              .getStatus(); // SERVING
      // end::probe[]
      assertThat(status).isEqualTo(ServingStatus.SERVING);

      ReactorServerReflectionClient reflection = new ReactorServerReflectionClient(served.requester());
      assertThat(
              reflection
                  .serverReflectionInfo(Flux.just(ServerReflectionRequest.newBuilder().setListServices("").build()))
                  .blockLast(WAIT)
                  .getListServicesResponse()
                  .getServiceList())
          .extracting(ServiceResponse::getName)
          .contains(ReactorGreeter.SERVICE, "grpc.health.v1.Health", ReflectionService.V1);

      // tag::shutdown[]
      health.enterShutdown(); // every service NOT_SERVING from now on; then drain and close
      // end::shutdown[]
      assertThat(probe.check(HealthCheckRequest.getDefaultInstance()).block(WAIT).getStatus())
          .isEqualTo(ServingStatus.NOT_SERVING);
    }
  }
}
