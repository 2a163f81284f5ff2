package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A request-response as a {@link Mono}. Its one inner object is the subscription and the stream
 * listener at once. Single-use: a second subscriber gets an error.
 */
public final class RequestResponseMono extends Mono<Message> {
  private final Inner inner;

  public RequestResponseMono(Requester requester, Message request) {
    this.inner = new Inner(requester, request);
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    inner.subscribeOnce(actual);
  }

  private static final class Inner extends StartableStream {
    Inner(Requester requester, Message request) {
      super(requester, request);
    }

    @Override
    StreamHandle start(Message request, long n) {
      return requester.requestResponse(request, this);
    }
  }
}
