package io.sluice.reactor;

import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Handles a peer's requests with project-reactor types. Methods are called on the connection's
 * event loop: return quickly, and move blocking work elsewhere (e.g. {@code subscribeOn}).
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it. Messages the
 * handler emits are released by Sluice once written.
 */
public interface ReactorResponder {

  default Mono<Void> fireAndForget(Message request) {
    request.release();
    return Mono.empty();
  }

  default Mono<Message> requestResponse(Message request) {
    request.release();
    return Mono.error(new ApplicationErrorException("request-response is not implemented"));
  }

  default Flux<Message> requestStream(Message request) {
    request.release();
    return Flux.error(new ApplicationErrorException("request-stream is not implemented"));
  }

  /**
   * A request-channel: {@code first} is the requester's first message, {@code rest} the ones after
   * it (subscribe to it to receive them; each {@code request(n)} becomes a REQUEST_N).
   */
  default Flux<Message> requestChannel(Message first, Flux<Message> rest) {
    first.release();
    return Flux.error(new ApplicationErrorException("request-channel is not implemented"));
  }

  /** A metadata push; only {@link Message#metadata()} is meaningful. */
  default Mono<Void> metadataPush(Message metadata) {
    metadata.release();
    return Mono.empty();
  }
}
