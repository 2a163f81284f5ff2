package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import io.sluice.futures.FuturesRequester;
import java.util.concurrent.Flow;

/** TCK (Flow variant) for the futures flavor's request-stream {@code Flow.Publisher}. */
public class FuturesRequestStreamTckTest extends FlowPublisherTck {
  @Override
  public Flow.Publisher<Message> createFlowPublisher(long elements) {
    return leftovers.track(
        new FuturesRequester(peers.client)
            .requestStream(leftovers.request(Long.toString(elements))));
  }

  @Override
  public Flow.Publisher<Message> createFailedFlowPublisher() {
    return leftovers.track(
        new FuturesRequester(peers.closedClient).requestStream(leftovers.request("1")));
  }
}
