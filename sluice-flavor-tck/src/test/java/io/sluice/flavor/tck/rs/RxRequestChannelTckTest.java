package io.sluice.flavor.tck.rs;

import io.reactivex.rxjava3.core.Flowable;
import io.sluice.Message;
import io.sluice.rxjava.RxRequester;
import org.reactivestreams.Publisher;

/**
 * TCK for rxjava's request-channel {@code Flowable}: the outbound side is one message carrying n
 * (made only when pulled, so none is left unreleased when a test cancels before the start), or a
 * few more after it; the responder answers with exactly n messages.
 */
public class RxRequestChannelTckTest extends RsPublisherTck {
  @Override
  public Publisher<Message> createPublisher(long elements) {
    Flowable<Message> first = Flowable.fromCallable(() -> leftovers.request(Long.toString(elements)));
    Flowable<Message> outbound =
        elements % 2 == 0
            ? first
            : first.concatWith(Flowable.range(0, 3).map(i -> leftovers.request("extra" + i)));
    return leftovers.track(new RxRequester(peers.client).requestChannel(outbound));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return leftovers.track(
        new RxRequester(peers.closedClient)
            .requestChannel(Flowable.fromCallable(() -> leftovers.request("1"))));
  }
}
