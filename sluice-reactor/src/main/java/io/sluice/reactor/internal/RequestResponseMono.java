package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.flavor.StreamSubscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A request-response as a {@link Mono}. Its one inner object, sluice-flavor-support's {@link
 * StreamSubscription}, is the subscription and the stream listener at once. Single-use: a second
 * subscriber gets an error.
 */
public final class RequestResponseMono extends Mono<Message> {
  private final StreamSubscription response;

  public RequestResponseMono(Requester requester, Message request) {
    this.response = new StreamSubscription(requester, request, false);
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    response.subscribe(actual);
  }
}
