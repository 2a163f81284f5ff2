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

  /** Completes when the connection is closed; exceptionally if it failed. */
  CompletableFuture<Void> onClose();
}
