package io.sluice.grpc.interop;

import io.grpc.testing.integration.GrpcTestService;
import io.grpc.testing.integration.GrpcTestServiceServer;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.services.orca.OrcaServerInterceptor;
import io.sluice.rpc.services.HealthService;
import io.sluice.rpc.services.ReflectionService;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;

/**
 * The registry an interop server serves: {@code grpc.testing.TestService} ({@link TestServiceImpl})
 * with its custom metadata echoed ({@link MetadataEcho}) and ORCA per-call load reports ({@link
 * OrcaServerInterceptor}), ORCA's out-of-band {@code xds.service.orca.v3.OpenRcaService} ({@link
 * TestServiceImpl#orcaService()}), gRPC health checking ({@code
 * grpc.health.v1.Health}: the server and TestService SERVING) and server reflection (v1 and
 * v1alpha) describing them all, so grpcurl and grpc-health-probe work against it. {@code
 * grpc.testing.UnimplementedService} is deliberately absent, so calls to it end UNIMPLEMENTED as the
 * unimplemented_service case wants. Stateless.
 */
public final class InteropServices {
  private InteropServices() {}

  /** The registry serving {@code service}. */
  public static ServiceRegistry registry(TestServiceImpl service) {
    HealthService health = new HealthService();
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(GrpcTestService.SERVICE, ServingStatus.SERVING);
    return ReflectionService.withReflection(
        ServiceRegistry.builder()
            .add(ServerInterceptors.intercept(
                MetadataEcho.wrap(new GrpcTestServiceServer(service).bindService()),
                OrcaServerInterceptor.create()))
            .add(service.orcaService())
            .add(health)
            .build());
  }
}
