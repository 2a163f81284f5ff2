package io.sluice.examples.guide;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.sluice.balancer.Balancer;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import io.sluice.micrometer.BalancerMeters;
import io.sluice.micrometer.LeaseMeters;
import io.sluice.micrometer.SluiceMetrics;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.netty.TcpServerTransport;
import java.util.concurrent.CompletableFuture;

/** docs/guide/observability.md: binding Sluice's meters to a Micrometer registry. */
final class ObservabilityGuide {
  private ObservabilityGuide() {}

  static CompletableFuture<ServerTransport.Bound> rsocket(MeterRegistry registry, ServiceRegistry services) {
    // tag::bind[]
    SluiceMetrics metrics = SluiceMetrics.of(registry); // any MeterRegistry: Prometheus, OTLP, ...
    ConnectionOptions options =
        ConnectionOptions.builder()
            .observer(metrics.connections()) // sluice.connections, .streams, .frames, .bytes, ...
            .build();
    return Connections.serve(
        TcpServerTransport.create("127.0.0.1", 7000),
        options,
        RpcResponder.acceptor(services, metrics.rsocketServer())); // rpc.server.call.duration, ...
    // end::bind[]
  }

  static GrpcServer.Running grpc(SluiceMetrics metrics, ServiceRegistry services) {
    // tag::grpc[]
    return GrpcServer.create("127.0.0.1", 50051)
        .withServices(
            GrpcServices.of(services)
                .withInstrumentation(metrics.grpcServer())) // grpc.server.call.duration, ...
        .start();
    // end::grpc[]
  }

  // tag::spring[]
  /** In Spring Boot: the auto-configured registry (Actuator's /actuator/prometheus scrapes it). */
  static SluiceMetrics sluiceMetrics(MeterRegistry springRegistry) {
    return SluiceMetrics.of(springRegistry, Tags.of("application", "orders"));
  }
  // end::spring[]

  static void leaseAndBalancer(SluiceMetrics metrics, AdaptiveLeasePolicy policy, Balancer balancer) {
    // tag::fleet[]
    LeaseMeters.bind(metrics, policy.stats()); // sluice.lease.limit, .in_flight, .rejections, ...
    BalancerMeters.bind(metrics, balancer, "orders"); // sluice.balancer.picks, .retries, ...
    // end::fleet[]
  }
}
