package io.sluice.mutiny;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;

/**
 * Handles a peer's requests with Mutiny types. Methods are called on the connection's event loop:
 * return quickly ({@code runSubscriptionOn} for blocking work).
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it. Items the
 * handler emits are released by Sluice once written. When the requester cancels, the handler's
 * {@code Uni} or {@code Multi} subscription is canceled.
 */
public interface MutinyResponder {

  default Uni<Void> fireAndForget(Message request) {
    request.release();
    return Uni.createFrom().voidItem();
  }

  /** The response; a {@code null} item answers with an empty completion. */
  default Uni<Message> requestResponse(Message request) {
    request.release();
    return Uni.createFrom()
        .failure(new ApplicationErrorException("request-response is not implemented"));
  }

  /** Sluice requests from the returned Multi exactly what the requester asks for. */
  default Multi<Message> requestStream(Message request) {
    request.release();
    return Multi.createFrom()
        .failure(new ApplicationErrorException("request-stream is not implemented"));
  }

  /**
   * A request-channel: {@code first} is the requester's first message, {@code rest} the ones after
   * it (each {@code request(n)} on it becomes a REQUEST_N).
   */
  default Multi<Message> requestChannel(Message first, Multi<Message> rest) {
    first.release();
    return Multi.createFrom()
        .failure(new ApplicationErrorException("request-channel is not implemented"));
  }

  default Uni<Void> metadataPush(Message metadata) {
    metadata.release();
    return Uni.createFrom().voidItem();
  }
}
