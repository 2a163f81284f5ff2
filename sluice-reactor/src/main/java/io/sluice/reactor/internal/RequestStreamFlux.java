package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.flavor.StreamSubscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A request-stream as a {@link Flux}: the first {@code request(n)} sends REQUEST_STREAM with
 * initial N = n, later ones send REQUEST_N. Its one inner object, sluice-flavor-support's {@link
 * StreamSubscription}, is the subscription and the stream listener at once. Single-use.
 */
public final class RequestStreamFlux extends Flux<Message> {
  private final StreamSubscription stream;

  public RequestStreamFlux(Requester requester, Message request) {
    this.stream = new StreamSubscription(requester, request, true);
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    stream.subscribe(actual);
  }
}
