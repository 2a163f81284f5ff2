package io.sluice.grpcstub;

import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Serves RSocket with handlers written in grpc-java's service style ({@link GrpcResponder}).
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned future yields
 * may arrive on an event loop thread, so do not block there. The acceptor and the responders are
 * called on each connection's event loop; the {@code Bound} may be closed from any thread.
 * <b>Buffers.</b> The acceptor's {@link io.sluice.SetupInfo} payload stays the core's (valid during
 * the call only); messages follow the rules of {@link GrpcResponder}.
 */
public final class GrpcServer {
  private GrpcServer() {}

  /** Decides on each connection: throw to reject the client's SETUP. */
  @FunctionalInterface
  public interface GrpcAcceptor {
    GrpcResponder accept(SetupInfo setup, GrpcRequester requester);
  }

  /** Serves every connection with the same handler, default options. */
  public static CompletableFuture<ServerTransport.Bound> serve(
      ServerTransport transport, GrpcResponder handler) {
    Objects.requireNonNull(handler, "handler");
    return serve(transport, ConnectionOptions.defaults(), (setup, requester) -> handler);
  }

  public static CompletableFuture<ServerTransport.Bound> serve(
      ServerTransport transport, ConnectionOptions options, GrpcAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    return Connections.serve(
        transport,
        options,
        (setup, requester) ->
            GrpcClient.toResponder(acceptor.accept(setup, new GrpcRequester(requester))));
  }
}
