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
 *
 * <p>{@code serve} may be called from any thread and blocks it until bound. Buffers follow {@link
 * BlockingResponder}: each request belongs to the handler, which releases it; what the handler
 * answers with or sends is released by Sluice.
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

  /** Serves connections, each request on a new virtual thread; blocks until bound. */
  public static ServerTransport.Bound serve(
      ServerTransport transport, ConnectionOptions options, BlockingAcceptor acceptor) {
    return serve(transport, options, acceptor, HandlerThreads.VIRTUAL);
  }

  /**
   * Serves connections, each request on a new virtual thread of the given kind; blocks until
   * bound.
   *
   * @throws UnsupportedOperationException if {@code threads} is {@link
   *     HandlerThreads#EVENT_LOOP_VIRTUAL} and this JVM does not allow it (see {@link
   *     EventLoopThreads})
   */
  public static ServerTransport.Bound serve(
      ServerTransport transport,
      ConnectionOptions options,
      BlockingAcceptor acceptor,
      HandlerThreads threads) {
    Objects.requireNonNull(acceptor, "acceptor");
    Objects.requireNonNull(threads, "threads");
    threads.check();
    try {
      return Connections.serve(
              transport,
              options,
              (setup, requester) ->
                  BlockingClient.toResponder(
                      acceptor.accept(setup, new BlockingRequester(requester)),
                      threads.executor(requester),
                      BlockingRequester.DEFAULT_PREFETCH))
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while binding");
    } catch (ExecutionException e) {
      throw Pipe.propagate(e.getCause());
    }
  }
}
