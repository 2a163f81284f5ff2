package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamListener;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * Fire-and-forget or metadata-push as a {@code Mono<Void>}: sent on subscribe, completes once the
 * frame is handed to the transport. Single-use.
 */
public final class FireAndForgetMono extends Mono<Void> {
  private final Requester requester;
  private final Message message;
  private final boolean metadataPush;
  private final AtomicBoolean subscribed = new AtomicBoolean();

  public FireAndForgetMono(Requester requester, Message message, boolean metadataPush) {
    this.requester = requester;
    this.message = message;
    this.metadataPush = metadataPush;
  }

  @Override
  public void subscribe(CoreSubscriber<? super Void> actual) {
    if (!subscribed.compareAndSet(false, true)) {
      Operators.error(
          actual, new IllegalStateException("a Sluice publisher allows only one subscriber"));
      return;
    }
    actual.onSubscribe(Operators.emptySubscription());
    StreamListener done =
        new StreamListener() {
          @Override
          public void onNext(Message m) {
            m.release();
          }

          @Override
          public void onComplete() {
            actual.onComplete();
          }

          @Override
          public void onError(Throwable cause) {
            actual.onError(cause);
          }
        };
    if (metadataPush) {
      requester.metadataPush(message, done);
    } else {
      requester.fireAndForget(message, done);
    }
  }
}
