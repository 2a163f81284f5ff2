package io.sluice.futures;

import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Serves RSocket with the JDK-only API.
 *
 * <pre>{@code
 * ServerTransport.Bound server =
 *     FuturesServer.serve(TcpServerTransport.create("127.0.0.1", 7878),
 *             new FuturesResponder() {
 *               public CompletionStage<Message> requestResponse(Message request) {
 *                 return CompletableFuture.completedFuture(request); // echo
 *               }
 *             })
 *         .join();
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned future yields
 * may arrive on an event loop thread, so do not block there. The acceptor and the responders are
 * called on each connection's event loop; the {@code Bound} may be closed from any thread.
 * <b>Buffers.</b> The acceptor's {@link io.sluice.SetupInfo} payload stays the core's (valid during
 * the call only); messages follow the rules of {@link FuturesResponder}.
 */
public final class FuturesServer {
  private FuturesServer() {}

  /** Decides on each connection: throw to reject the client's SETUP. */
  @FunctionalInterface
  public interface FuturesAcceptor {
    FuturesResponder accept(SetupInfo setup, FuturesRequester requester);
  }

  /** Serves every connection with the same handler, default options. */
  public static CompletableFuture<ServerTransport.Bound> serve(
      ServerTransport transport, FuturesResponder handler) {
    Objects.requireNonNull(handler, "handler");
    return serve(transport, ConnectionOptions.defaults(), (setup, requester) -> handler);
  }

  /** Serves connections; {@code acceptor} gets each client's SETUP and a requester to call it back. */
  public static CompletableFuture<ServerTransport.Bound> serve(
      ServerTransport transport, ConnectionOptions options, FuturesAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    return Connections.serve(
        transport,
        options,
        (setup, requester) ->
            FuturesClient.toResponder(acceptor.accept(setup, new FuturesRequester(requester))));
  }
}
