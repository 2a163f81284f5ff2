package io.sluice.transport;

import java.util.concurrent.CompletableFuture;

/**
 * Opens connections to one server.
 *
 * <p><b>Threads.</b> Implementations are thread-safe: {@link #connect()} may be called from any
 * thread, any number of times, and must not block. <b>Buffers.</b> None cross this interface; the
 * frames of a connection cross its {@link DuplexTransport}.
 */
public interface ClientTransport {
  /** Connects; the future completes on the new connection's event loop or fails. */
  CompletableFuture<DuplexTransport> connect();
}
