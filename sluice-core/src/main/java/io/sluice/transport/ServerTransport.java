package io.sluice.transport;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** Accepts connections. */
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
