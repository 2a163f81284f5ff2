package io.sluice.reactor.tck;

import org.reactivestreams.Publisher;

/**
 * TCK for the fire-and-forget {@code Mono<Void>} (FireAndForgetMono), subscribed as a plain
 * Subscriber. It has no elements, so the TCK runs only its element-free rules; the failed publisher
 * is a fire-and-forget on a connection that is already closed.
 */
public class FireAndForgetPublisherTckTest extends RequesterPublisherVerification<Void> {
  public FireAndForgetPublisherTckTest() {
    super(false);
  }

  @Override
  public long maxElementsFromPublisher() {
    return 0;
  }

  @Override
  public Publisher<Void> createPublisher(long elements) {
    return expose(peers.client.fireAndForget(request("fnf")));
  }

  @Override
  public Publisher<Void> createFailedPublisher() {
    return expose(peers.closedClient.fireAndForget(request("fnf")));
  }
}
