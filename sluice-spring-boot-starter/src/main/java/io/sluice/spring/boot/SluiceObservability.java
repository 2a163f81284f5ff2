package io.sluice.spring.boot;

import io.sluice.core.ConnectionOptions;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerInterceptor;
import java.util.List;

/**
 * What watches the auto-configured server and client beans: the starter contributes one for
 * Micrometer (sluice-micrometer on the class path and a {@code MeterRegistry} bean) and one for
 * OpenTelemetry tracing (sluice-opentelemetry and an {@code OpenTelemetry} bean), see {@link
 * SluiceObservabilityAutoConfiguration}; an application may declare its own. Every bean of this
 * type is applied, each part to what it names; everything defaults to nothing.
 */
public interface SluiceObservability {
  /** Observes the server's calls on the RSocket wire (every RSocket transport, the one port's too). */
  default RpcInstrumentation rsocketServer() {
    return RpcInstrumentation.NONE;
  }

  /** Observes the server's calls on the gRPC wire, gRPC-Web and HTTP/JSON included. */
  default RpcInstrumentation grpcServer() {
    return RpcInstrumentation.NONE;
  }

  /** Wrap every application service the server serves (the reflection service is left alone). */
  default List<ServerInterceptor> serverInterceptors() {
    return List.of();
  }

  /** Wrap the calls of every {@code sluice.client.<name>} stub bean. */
  default List<ClientInterceptor> clientInterceptors() {
    return List.of();
  }

  /**
   * Changes the options of the server's RSocket connections and of the client beans' connections
   * (a {@code ConnectionObserver}, say), before {@link SluiceConnectionOptionsCustomizer} beans.
   */
  default void customizeConnections(ConnectionOptions.Builder options) {}
}
