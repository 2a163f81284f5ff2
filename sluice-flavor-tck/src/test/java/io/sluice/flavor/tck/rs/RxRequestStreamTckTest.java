package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import io.sluice.rxjava.RxRequester;
import org.reactivestreams.Publisher;

/** TCK for rxjava's request-stream {@code Flowable}; the failed one is on a closed connection. */
public class RxRequestStreamTckTest extends RsPublisherTck {
  @Override
  public Publisher<Message> createPublisher(long elements) {
    return leftovers.track(
        new RxRequester(peers.client)
            .requestStream(leftovers.request(Long.toString(elements))));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return leftovers.track(
        new RxRequester(peers.closedClient).requestStream(leftovers.request("1")));
  }
}
