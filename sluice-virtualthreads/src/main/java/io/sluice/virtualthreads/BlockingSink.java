package io.sluice.virtualthreads;

import io.sluice.Message;

/**
 * The outbound half of a stream or channel for a blocking thread: {@link #send(Message)} waits
 * until the peer has granted demand, so a fast producer is paced by a slow consumer.
 *
 * <p>{@link #send(Message)} takes ownership of the message, also when it throws. It throws {@link
 * java.util.concurrent.CancellationException} once the peer canceled (or when interrupted while
 * waiting), and the stream's error once it failed. Meant for one producing thread.
 */
public interface BlockingSink {

  /** Sends one message, waiting for demand. */
  void send(Message message);

  /** Completes the outbound half. Idempotent. */
  void complete();

  /** Fails the stream: the peer receives ERROR (APPLICATION_ERROR unless a SluiceException). */
  void error(Throwable cause);

  /** True once the peer canceled or the stream failed: stop producing. */
  boolean isCanceled();
}
