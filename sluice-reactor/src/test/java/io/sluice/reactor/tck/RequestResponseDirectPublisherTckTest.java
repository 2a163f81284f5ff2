package io.sluice.reactor.tck;

import io.sluice.Message;
import org.reactivestreams.Publisher;

/**
 * TCK for the request-response {@code Mono} (RequestResponseMono), subscribed through {@link
 * DirectPublisher}, seeing Sluice's own Subscription: at most one element (the responder answers a
 * request for 0 with an empty response). The failed publisher is a request-response on a connection
 * that is already closed. See {@link RequesterPublisherVerification} for how buffers stay
 * leak-free.
 */
public class RequestResponseDirectPublisherTckTest extends RequesterPublisherVerification<Message> {
  public RequestResponseDirectPublisherTckTest() {
    super(true);
  }

  @Override
  public long maxElementsFromPublisher() {
    return 1;
  }

  @Override
  public Publisher<Message> createPublisher(long elements) {
    return expose(peers.client.requestResponse(request(Long.toString(elements))));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return expose(peers.closedClient.requestResponse(request("1")));
  }
}
