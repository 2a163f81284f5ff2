package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import java.util.concurrent.Flow;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/** A request-channel as a publisher of either kind: see {@link ChannelSubscription}. */
final class ChannelPublisher extends RequesterPublisher {
  private final ChannelSubscription subscription;

  ChannelPublisher(Requester requester, Publisher<Message> source) {
    this.subscription = new ChannelSubscription(requester, source);
  }

  ChannelPublisher(Requester requester, Flow.Publisher<Message> source) {
    this.subscription = new ChannelSubscription(requester, source);
  }

  @Override
  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    subscription.subscribe(rs, flow);
  }
}
