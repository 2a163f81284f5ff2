package io.sluice;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Starts interactions with the peer of one connection: the flavor-neutral contract that every API
 * flavor adapts. Both sides of a connection have one (RSocket is symmetric). Thread-safe.
 *
 * <p>Every method takes ownership of the message it is given, also when it fails.
 */
public interface Requester {

  /**
   * Sends a fire-and-forget request. The listener completes once the frame is handed to the
   * transport, or fails (connection closed, no lease, ...).
   */
  void fireAndForget(Message request, StreamListener listener);

  /** Starts a request-response; the listener receives at most one message, then completion. */
  StreamHandle requestResponse(Message request, StreamListener listener);

  /**
   * Starts a request-stream with an initial demand of {@code initialRequest} (at least 1; {@link
   * Long#MAX_VALUE} means unbounded).
   */
  StreamHandle requestStream(Message request, long initialRequest, StreamListener listener);

  /**
   * Starts a request-channel whose first outbound message is {@code first}; {@code complete} says
   * the outbound half ends with it. Further outbound messages go through {@link
   * StreamHandle#next(Message)} once the listener has seen demand.
   */
  StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener);

  /** Sends a metadata push: only the message's metadata travels; the listener as for FNF. */
  void metadataPush(Message metadata, StreamListener listener);

  /**
   * How much of the peer's lease is left, from 0 to 1, for a caller choosing where to send (a load
   * balancer). Without leasing: 1 while open, 0 once closing. With leasing: the share of the last
   * LEASE's requests still unspent while that lease is valid; 0 before the first LEASE, after it
   * expired, and once the connection is closing or closed. Any thread; a racy snapshot.
   */
  default double availability() {
    return isOpen() ? 1.0 : 0.0;
  }

  /**
   * {@link #availability()} for a request of priority {@code rank} (0 is the highest): 0 while the
   * peer's lease says it refuses that rank now (the peer is near its limit and sheds lower ranks
   * first), {@link #availability()} otherwise.
   */
  default double availability(int rank) {
    return availability();
  }

  /** The connection's allocator. */
  ByteBufAllocator alloc();

  /** The event loop the connection is confined to. */
  Executor executor();

  /** True until the connection starts closing. */
  boolean isOpen();

  /**
   * Closes gracefully: tells the peer (ERROR[CONNECTION_CLOSE]), rejects new streams, lets live
   * streams finish within the configured drain timeout, then closes the transport.
   */
  void close();

  /** Closes at once: live streams fail with a connection error. */
  void dispose();

  /**
   * Completes when the connection is closed; exceptionally if it failed, which includes a peer that
   * went away without a graceful close (no CONNECTION_CLOSE from either side).
   */
  CompletableFuture<Void> onClose();
}
