package io.sluice.rxjava;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;

/**
 * Handles a peer's requests with rxjava3 types. Methods are called on the connection's event loop:
 * return quickly ({@code subscribeOn} for blocking work).
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it. Messages the
 * handler emits are released by Sluice once written. When the requester cancels, the handler's
 * {@code Single} is disposed / its {@code Flowable}'s subscription canceled.
 */
public interface RxResponder {

  default Completable fireAndForget(Message request) {
    request.release();
    return Completable.complete();
  }

  default Single<Message> requestResponse(Message request) {
    request.release();
    return Single.error(new ApplicationErrorException("request-response is not implemented"));
  }

  /** Sluice requests from the returned flowable exactly what the requester asks for. */
  default Flowable<Message> requestStream(Message request) {
    request.release();
    return Flowable.error(new ApplicationErrorException("request-stream is not implemented"));
  }

  /**
   * A request-channel: {@code first} is the requester's first message, {@code rest} the ones after
   * it (each {@code request(n)} on it becomes a REQUEST_N).
   */
  default Flowable<Message> requestChannel(Message first, Flowable<Message> rest) {
    first.release();
    return Flowable.error(new ApplicationErrorException("request-channel is not implemented"));
  }

  default Completable metadataPush(Message metadata) {
    metadata.release();
    return Completable.complete();
  }
}
