package io.sluice.virtualthreads;

import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Connects to an RSocket server with the blocking API.
 *
 * <pre>{@code
 * BlockingRequester requester = BlockingClient.connect(TcpClientTransport.create("127.0.0.1", 7878));
 * try (Message reply = requester.requestResponse(Message.utf8(requester.alloc(), "hi"))) {
 *   System.out.println(reply.dataUtf8());
 * }
 * }</pre>
 *
 * <p><b>Threads.</b> {@code connect} blocks its caller until the connection is ready: call it on a
 * thread that may block (a virtual thread, or a platform thread that is not an event loop). The
 * requester it returns may be used from any such thread. <b>Buffers.</b> A {@link
 * io.sluice.core.ClientSetup}'s payload passes to {@code connect}, which sends or releases it;
 * messages follow the rules of {@link BlockingRequester}.
 */
public final class BlockingClient {
  private BlockingClient() {}

  /** Connects with default options; requests from the server are refused. Blocks until ready. */
  public static BlockingRequester connect(ClientTransport transport) {
    return connect(transport, ConnectionOptions.defaults(), ClientSetup.defaults(), r -> null);
  }

  /**
   * Connects and blocks until requests may be sent.
   *
   * @param responder makes the handler for the server's requests to this client (run on virtual
   *     threads); may return null
   */
  public static BlockingRequester connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<BlockingRequester, BlockingResponder> responder) {
    return connect(transport, options, setup, responder, HandlerThreads.VIRTUAL);
  }

  /**
   * As {@link #connect(ClientTransport, ConnectionOptions, ClientSetup, Function)}, running the
   * handlers of the server's requests on virtual threads of the given kind.
   *
   * @throws UnsupportedOperationException if {@code threads} is {@link
   *     HandlerThreads#EVENT_LOOP_VIRTUAL} and this JVM does not allow it (see {@link
   *     EventLoopThreads})
   */
  public static BlockingRequester connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<BlockingRequester, BlockingResponder> responder,
      HandlerThreads threads) {
    Objects.requireNonNull(responder, "responder");
    Objects.requireNonNull(threads, "threads");
    threads.check();
    try {
      return Connections.connect(
              transport,
              options,
              setup,
              r ->
                  toResponder(
                      responder.apply(new BlockingRequester(r)),
                      threads.executor(r),
                      BlockingRequester.DEFAULT_PREFETCH))
          .thenApply(BlockingRequester::new)
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while connecting");
    } catch (ExecutionException e) {
      throw Pipe.propagate(e.getCause());
    }
  }

  /** The core {@link Responder} running {@code handler} on a new virtual thread per request. */
  public static Responder toResponder(BlockingResponder handler) {
    return toResponder(handler, VirtualThreads.EXECUTOR, BlockingRequester.DEFAULT_PREFETCH);
  }

  /**
   * The core {@link Responder} running {@code handler} on {@code executor}, granting requesters of
   * channels {@code prefetch} messages of credit at a time.
   */
  public static Responder toResponder(BlockingResponder handler, Executor executor, int prefetch) {
    if (prefetch < 1) {
      throw new IllegalArgumentException("prefetch must be at least 1: " + prefetch);
    }
    return new BlockingResponderAdapter(
        handler != null ? handler : new BlockingResponder() {}, executor, prefetch);
  }

  static final class VirtualThreads {
    /**
     * A new unnamed virtual thread per task. Not {@code Executors.newThreadPerTaskExecutor}: it keeps
     * every live thread in a concurrent set (for its shutdown, which this shared executor never
     * has), and a name per thread costs a string; with both, starting a handler cost about a fifth
     * of the server's CPU on request-response.
     */
    static final Executor EXECUTOR = Thread::startVirtualThread;
  }
}
