package io.sluice.reactor.tck;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CorePublisher;
import reactor.core.CoreSubscriber;

/**
 * Subscribes the TCK's subscribers to a Sluice publisher as reactor's own operators do: through
 * {@link CorePublisher#subscribe(CoreSubscriber)}, with a pass-through {@link CoreSubscriber}. A
 * plain {@link Subscriber} given to {@code Flux.subscribe} is wrapped in reactor's {@code
 * StrictSubscriber}, which enforces rules such as §3.9 itself and hides the Sluice {@link
 * Subscription}; this variant hands the TCK the Sluice subscription itself.
 *
 * <p>The pass-through adds no behaviour: every signal goes straight to the TCK's subscriber.
 */
final class DirectPublisher<T> implements Publisher<T> {
  private final CorePublisher<T> source;

  DirectPublisher(CorePublisher<T> source) {
    this.source = source;
  }

  @Override
  public void subscribe(Subscriber<? super T> s) {
    if (s == null) {
      source.subscribe((Subscriber<? super T>) null); // §1.9: the publisher must throw NPE
      return;
    }
    source.subscribe(new PassThrough<>(s));
  }

  @Override
  public String toString() {
    return "Direct(" + source + ")";
  }

  private static final class PassThrough<T> implements CoreSubscriber<T> {
    private final Subscriber<? super T> actual;

    PassThrough(Subscriber<? super T> actual) {
      this.actual = actual;
    }

    @Override
    public void onSubscribe(Subscription s) {
      actual.onSubscribe(s);
    }

    @Override
    public void onNext(T t) {
      actual.onNext(t);
    }

    @Override
    public void onError(Throwable t) {
      actual.onError(t);
    }

    @Override
    public void onComplete() {
      actual.onComplete();
    }
  }
}
