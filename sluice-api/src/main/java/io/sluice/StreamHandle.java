package io.sluice;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.Executor;

/**
 * The local end of one live RSocket stream, created by the protocol core and handed to an API
 * flavor (or to a {@link Responder}). It has an inbound half (messages from the peer, paced by
 * {@link #request(long)}) and an outbound half (messages to the peer, paced by the peer's demand,
 * which arrives as {@link StreamListener#onRequest(long)}).
 *
 * <p><b>Threads.</b> Every method may be called from any thread. Calls made on the connection's
 * event loop ({@link #executor()}) run at once; calls from other threads are handed to the loop in
 * order, batched with the connection's other cross-thread work.
 *
 * <p><b>Ownership.</b> {@link #next(Message)} takes ownership of the message, also when the
 * stream has already ended (it is then released at once).
 */
public interface StreamHandle {

  /**
   * Grants the peer credit for {@code n} more inbound messages. Credits add up and saturate at
   * {@link Long#MAX_VALUE}, which means unbounded. {@code n <= 0} fails the stream with an {@link
   * IllegalArgumentException}, as Reactive Streams rule 3.9 asks.
   */
  void request(long n);

  /**
   * Ends the stream from this side: the peer is told (CANCEL from a requester; from a responder,
   * ERROR[CANCELED] while its own half is open, or CANCEL when only the requester's half of a
   * channel is left), buffered fragments are released, and no signal reaches the listener after
   * this returns on the event loop.
   */
  void cancel();

  /**
   * Sends one message. The caller must hold demand granted through {@link
   * StreamListener#onRequest(long)}; a message beyond it fails the stream (never queued).
   */
  void next(Message message);

  /** Sends one message and completes the outbound half, in a single frame where possible. */
  default void nextAndComplete(Message message) {
    next(message);
    complete();
  }

  /** Completes the outbound half. */
  void complete();

  /**
   * Fails the stream: the peer receives ERROR with the code of a {@link
   * io.sluice.exceptions.SluiceException} that is valid on a stream, APPLICATION_ERROR otherwise.
   */
  void error(Throwable cause);

  /** The event loop that owns this stream's connection. */
  Executor executor();

  /** The connection's allocator, for building messages. */
  ByteBufAllocator alloc();
}
