package io.sluice.reactor.tck;

import io.sluice.Message;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * TCK for the request-channel {@code Flux} (RequestChannelFlux), subscribed as a plain Subscriber
 * (through reactor's StrictSubscriber). The outbound side is one message carrying n, or a few more
 * after it; the responder answers with exactly n messages. The failed publisher is a channel on a
 * connection that is already closed. See {@link RequesterPublisherVerification} for how buffers
 * stay leak-free.
 */
public class RequestChannelPublisherTckTest extends RequesterPublisherVerification<Message> {
  public RequestChannelPublisherTckTest() {
    super(false);
  }

  @Override
  public Publisher<Message> createPublisher(long elements) {
    // Messages are made only when the channel pulls them, so none is left unreleased when a test
    // cancels before the channel starts.
    Mono<Message> first = Mono.fromSupplier(() -> request(Long.toString(elements)));
    Flux<Message> outbound =
        elements % 2 == 0
            ? first.flux()
            : Flux.concat(first, Flux.range(0, 3).map(i -> request("extra" + i)));
    return expose(peers.client.requestChannel(outbound));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return expose(
        peers.closedClient.requestChannel(Mono.fromSupplier(() -> request("1"))));
  }
}
