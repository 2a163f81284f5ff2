package io.sluice.reactor.tck;

import io.sluice.Message;
import org.reactivestreams.Publisher;

/**
 * TCK for the request-stream {@code Flux} (RequestStreamFlux), subscribed through {@link
 * DirectPublisher}, seeing Sluice's own Subscription. The responder answers a request for n with
 * exactly n messages; the failed publisher is a request-stream on a connection that is already
 * closed. See {@link RequesterPublisherVerification} for how buffers stay leak-free.
 */
public class RequestStreamDirectPublisherTckTest extends RequesterPublisherVerification<Message> {
  public RequestStreamDirectPublisherTckTest() {
    super(true);
  }

  @Override
  public Publisher<Message> createPublisher(long elements) {
    return expose(peers.client.requestStream(request(Long.toString(elements))));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return expose(peers.closedClient.requestStream(request("1")));
  }
}
