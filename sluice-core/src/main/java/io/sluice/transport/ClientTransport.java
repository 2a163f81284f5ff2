package io.sluice.transport;

import java.util.concurrent.CompletableFuture;

/** Opens connections to one server. */
public interface ClientTransport {
  /** Connects; the future completes on the new connection's event loop or fails. */
  CompletableFuture<DuplexTransport> connect();
}
