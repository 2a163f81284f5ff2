package io.sluice.virtualthreads;

import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * Serves RSocket with blocking handlers, each request on its own virtual thread.
 *
 * <pre>{@code
 * ServerTransport.Bound server =
 *     BlockingServer.serve(TcpServerTransport.create("127.0.0.1", 7878), new BlockingResponder() {
 *       public Message requestResponse(Message request) {
 *         return request; // echo
 *       }
 *     });
 * }</pre>
 */
public final class BlockingServer {
  private BlockingServer() {}

  /** Decides on each connection (on its event loop: do not block here); throw to reject. */
  @FunctionalInterface
  public interface BlockingAcceptor {
    BlockingResponder accept(SetupInfo setup, BlockingRequester requester);
  }

  /** Serves every connection with the same handler; blocks until bound. */
  public static ServerTransport.Bound serve(ServerTransport transport, BlockingResponder handler) {
    Objects.requireNonNull(handler, "handler");
    return serve(transport, ConnectionOptions.defaults(), (setup, requester) -> handler);
  }

  /** Serves connections; blocks until bound. */
  public static ServerTransport.Bound serve(
      ServerTransport transport, ConnectionOptions options, BlockingAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    try {
      return Connections.serve(
              transport,
              options,
              (setup, requester) ->
                  BlockingClient.toResponder(
                      acceptor.accept(setup, new BlockingRequester(requester))))
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while binding");
    } catch (ExecutionException e) {
      throw Pipe.propagate(e.getCause());
    }
  }
}
