package io.sluice.transport;

import java.net.SocketAddress;
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

    /** Completes once the listener is closed. */
    CompletableFuture<Void> onClose();
  }
}
