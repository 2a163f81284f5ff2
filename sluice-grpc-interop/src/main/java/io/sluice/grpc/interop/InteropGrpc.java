package io.sluice.grpc.interop;

import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import java.util.concurrent.CompletionException;

/**
 * The interop service and client over gRPC's own wire protocol (HTTP/2, h2c with prior knowledge):
 * the service for any gRPC interop client (grpc-java's TestServiceClient among them), the client
 * for running the Sluice-stub cases against any gRPC TestService server. Stateless.
 */
public final class InteropGrpc {
  private InteropGrpc() {}

  /**
   * Serves {@code registry} over gRPC, h2c, on {@code host}:{@code port} (0: any free port):
   * requests up to {@link InteropRsocket#MAX_MESSAGE_BYTES} (very_large_request sends 10 MiB),
   * responses gzip-compressed for callers that accept gzip (the server_compressed cases).
   */
  public static GrpcServer.Running serve(String host, int port, ServiceRegistry registry) {
    return serve(host, port, registry, io.sluice.rpc.RpcInstrumentation.NONE, false);
  }

  /** As {@link #serve(String, int, ServiceRegistry)}, every call observed by {@code instrumentation}. */
  public static GrpcServer.Running serve(
      String host, int port, ServiceRegistry registry, io.sluice.rpc.RpcInstrumentation instrumentation) {
    return serve(host, port, registry, instrumentation, false);
  }

  /** As {@link #serve(String, int, ServiceRegistry)}; {@code console}: the console page too. */
  public static GrpcServer.Running serve(String host, int port, ServiceRegistry registry, boolean console) {
    return serve(host, port, registry, io.sluice.rpc.RpcInstrumentation.NONE, console);
  }

  /**
   * As {@link #serve(String, int, ServiceRegistry)}, every call observed by {@code
   * instrumentation}; {@code console}: the console page too.
   */
  public static GrpcServer.Running serve(
      String host,
      int port,
      ServiceRegistry registry,
      io.sluice.rpc.RpcInstrumentation instrumentation,
      boolean console) {
    GrpcServer server =
        GrpcServer.create(host, port)
            .withServices(
                io.sluice.transport.grpc.GrpcServices.of(registry)
                    .withMaxInboundMessageSize(InteropRsocket.MAX_MESSAGE_BYTES)
                    .withGzipResponses(true)
                    .withInstrumentation(instrumentation));
    return (console ? server.withConsole() : server).start();
  }

  /**
   * Connects to a gRPC server; close the channel when done. Responses up to {@link
   * InteropRsocket#MAX_MESSAGE_BYTES} (very_large_response asks for 10 MiB).
   *
   * @throws io.sluice.rpc.StatusException UNAVAILABLE when the server cannot be reached
   */
  public static GrpcChannel connect(String host, int port) {
    try {
      return GrpcClientTransport.create(host, port)
          .withMaxInboundMessageSize(InteropRsocket.MAX_MESSAGE_BYTES)
          .connect()
          .join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
    }
  }
}
