package io.sluice.futures;

import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Handles a peer's requests with JDK types. Methods are called on the connection's event loop:
 * return quickly and complete the stage (or feed the publisher) from elsewhere if the work is slow.
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it. Messages the
 * handler answers with are released by Sluice once written (or at once if the requester has gone).
 *
 * <p><b>Cancellation.</b> When the requester cancels a request-response, the returned stage is
 * canceled if it is a {@link CompletableFuture}; a stream's or channel's subscription is canceled.
 */
public interface FuturesResponder {

  default void fireAndForget(Message request) {
    request.release();
  }

  /** Answer with the response, {@code null} for an empty one, or fail the stage. */
  default CompletionStage<Message> requestResponse(Message request) {
    request.release();
    return CompletableFuture.failedFuture(
        new ApplicationErrorException("request-response is not implemented"));
  }

  /** Answer with a publisher; Sluice requests from it exactly what the requester asks for. */
  default Flow.Publisher<Message> requestStream(Message request) {
    request.release();
    return FlowStreams.error(new ApplicationErrorException("request-stream is not implemented"));
  }

  /**
   * A request-channel: {@code first} is the requester's first message, {@code rest} the ones after
   * it (subscribe to receive them; each {@code request(n)} becomes a REQUEST_N).
   */
  default Flow.Publisher<Message> requestChannel(Message first, Flow.Publisher<Message> rest) {
    first.release();
    return FlowStreams.error(new ApplicationErrorException("request-channel is not implemented"));
  }

  /** A metadata push; only {@link Message#metadata()} is meaningful. */
  default void metadataPush(Message metadata) {
    metadata.release();
  }
}
