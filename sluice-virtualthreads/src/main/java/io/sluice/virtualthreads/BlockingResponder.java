package io.sluice.virtualthreads;

import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;

/**
 * Handles a peer's requests with blocking code. Every call runs on its own virtual thread, so a
 * handler may block freely (call other services, wait on locks, sleep).
 *
 * <p>Throwing fails the stream: the peer gets the code of a {@link
 * io.sluice.exceptions.SluiceException}, APPLICATION_ERROR with the message otherwise. When the
 * requester cancels, the handler's thread is interrupted and further sends throw {@link
 * java.util.concurrent.CancellationException}.
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it. Messages the
 * handler answers with or sends are released by Sluice.
 */
public interface BlockingResponder {

  default void fireAndForget(Message request) {
    request.release();
  }

  /** Returns the response; {@code null} answers with an empty completion. */
  default Message requestResponse(Message request) {
    request.release();
    throw new ApplicationErrorException("request-response is not implemented");
  }

  /**
   * Sends the stream's messages through {@code out} (each send waits for the requester's demand);
   * returning completes the stream.
   */
  default void requestStream(Message request, BlockingSink out) {
    request.release();
    throw new ApplicationErrorException("request-stream is not implemented");
  }

  /**
   * A request-channel: {@code first} is the requester's first message, {@code in} the rest
   * (backpressured; closing it stops reading), {@code out} the answers. Returning completes the
   * outbound half; if {@code in} has not ended by then, the requester is told to stop (CANCEL).
   */
  default void requestChannel(Message first, BlockingStream in, BlockingSink out) {
    first.release();
    throw new ApplicationErrorException("request-channel is not implemented");
  }

  default void metadataPush(Message metadata) {
    metadata.release();
  }
}
