package io.sluice.grpc.interop;

import io.grpc.testing.integration.GrpcTestServiceServer;
import io.sluice.rpc.ServiceRegistry;

/**
 * The registry an interop server serves: {@code grpc.testing.TestService} ({@link TestServiceImpl})
 * with its custom metadata echoed ({@link MetadataEcho}). {@code grpc.testing.UnimplementedService}
 * is deliberately absent, so calls to it end UNIMPLEMENTED as the unimplemented_service case wants.
 * Stateless.
 */
public final class InteropServices {
  private InteropServices() {}

  /**
   * The registry serving {@code service}, echoing metadata to {@code metadata} ({@link
   * ResponseMetadata.CALL_MODEL} over RSocket).
   */
  public static ServiceRegistry registry(TestServiceImpl service, ResponseMetadata metadata) {
    return ServiceRegistry.builder()
        .add(MetadataEcho.wrap(new GrpcTestServiceServer(service).bindService(), metadata))
        .build();
  }
}
