package io.sluice.grpc.interop;

import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import java.util.concurrent.CompletionException;

/**
 * The interop client over gRPC's own wire protocol (HTTP/2, h2c with prior knowledge), for
 * running the Sluice-stub cases against any gRPC TestService server, grpc-java's among them.
 * Stateless.
 */
public final class InteropGrpc {
  private InteropGrpc() {}

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
