package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A request-stream as a {@link Flux}: the first {@code request(n)} sends REQUEST_STREAM with
 * initial N = n, later ones send REQUEST_N. Single-use.
 */
public final class RequestStreamFlux extends Flux<Message> {
  private final Inner inner;

  public RequestStreamFlux(Requester requester, Message request) {
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
      return requester.requestStream(request, n, this);
    }
  }
}
