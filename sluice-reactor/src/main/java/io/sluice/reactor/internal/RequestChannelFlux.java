package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.flavor.ChannelSubscription;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A request-channel as a {@link Flux}, on sluice-flavor-support's {@link ChannelSubscription} (the
 * subscription and stream listener, one object per stream; see there for the rules). Its outbound
 * subscriber is a {@link CoreSubscriber}, so a {@code Flux} given as outbound does not wrap it in a
 * checking subscriber. Single-use.
 */
public final class RequestChannelFlux extends Flux<Message> {
  private final ChannelSubscription channel;

  public RequestChannelFlux(Requester requester, Publisher<Message> outbound) {
    this.channel = new ChannelSubscription(requester, outbound, CoreOutbound::new);
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    channel.subscribe(actual);
  }

  /** The channel's subscriber on the user's outbound publisher, as reactor's own kind. */
  private static final class CoreOutbound extends ChannelSubscription.Outbound
      implements CoreSubscriber<Message> {
    CoreOutbound(ChannelSubscription channel) {
      super(channel);
    }
  }
}
