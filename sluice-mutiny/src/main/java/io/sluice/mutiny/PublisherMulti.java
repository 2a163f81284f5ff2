package io.sluice.mutiny;

import io.smallrye.mutiny.operators.AbstractMulti;
import io.smallrye.mutiny.subscription.MultiSubscriber;
import io.sluice.Message;
import java.util.Objects;
import java.util.concurrent.Flow;

/**
 * A {@link io.smallrye.mutiny.Multi} that is the core stream's own publisher: subscribers go
 * straight to it (no wrapping subscriber, no operator), so the stream's one object is their
 * subscription. Mutiny's operators still apply to it as to any {@code Multi}.
 */
final class PublisherMulti extends AbstractMulti<Message> {
  private final Flow.Publisher<Message> source;

  PublisherMulti(Flow.Publisher<Message> source) {
    this.source = source;
  }

  @Override
  public void subscribe(MultiSubscriber<? super Message> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber (Reactive Streams §1.9)");
    source.subscribe(subscriber);
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Message> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber (Reactive Streams §1.9)");
    source.subscribe(subscriber);
  }
}
