package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import java.util.concurrent.Flow;
import org.reactivestreams.Subscriber;

/** Request-response or request-stream as a publisher of either kind: see {@link StreamSubscription}. */
final class StreamPublisher extends RequesterPublisher {
  private final StreamSubscription subscription;

  StreamPublisher(Requester requester, Message request, boolean stream) {
    this.subscription = new StreamSubscription(requester, request, stream);
  }

  @Override
  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    subscription.subscribe(rs, flow);
  }
}
