package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import io.sluice.mutiny.MutinyRequester;
import java.util.concurrent.Flow;

/** TCK (Flow variant) for Mutiny's request-stream {@code Multi}. */
public class MutinyRequestStreamTckTest extends FlowPublisherTck {
  @Override
  public Flow.Publisher<Message> createFlowPublisher(long elements) {
    return leftovers.track(
        new MutinyRequester(peers.client)
            .requestStream(leftovers.request(Long.toString(elements))));
  }

  @Override
  public Flow.Publisher<Message> createFailedFlowPublisher() {
    return leftovers.track(
        new MutinyRequester(peers.closedClient).requestStream(leftovers.request("1")));
  }
}
