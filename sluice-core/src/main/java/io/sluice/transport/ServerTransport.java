package io.sluice.transport;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Accepts connections.
 *
 * <p><b>Threads.</b> {@link #bind} may be called from any thread and must not block; a {@link
 * Bound} may be closed from any thread. <b>Buffers.</b> None cross this interface; the frames of a
 * connection cross its {@link DuplexTransport}.
 */
public interface ServerTransport {

  /**
   * Starts listening. {@code onConnection} is called on each accepted connection's event loop.
   */
  CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection);

  /** A listening server. */
  interface Bound extends AutoCloseable {
    /** The address actually bound (with the real port when port 0 was asked for). */
    SocketAddress address();

    /** Stops accepting; existing connections are not touched. Idempotent. */
    @Override
    void close();

    /**
     * Stops accepting, as {@link #close()} does, and stops what the transport serves itself,
     * without handing it to {@code onConnection} (the gRPC calls of a server of several
     * protocols, say): tells its clients to start nothing new there, lets what is under way
     * finish, and cuts what is left after {@code grace}. The connections handed to {@code
     * onConnection} are not touched (their engine drains them). The default is {@link #close()}.
     * Idempotent; called by a server's graceful stop.
     *
     * @return completes once the listener has closed and what the transport serves itself has
     *     ended
     */
    default CompletableFuture<Void> stop(Duration grace) {
      close();
      return onClose();
    }

    /**
     * Completes once the listener is closed and its address free to bind again. It may complete
     * on the listener's event loop a turn after the close: a thread of that loop must not block
     * waiting for it.
     */
    CompletableFuture<Void> onClose();
  }
}
