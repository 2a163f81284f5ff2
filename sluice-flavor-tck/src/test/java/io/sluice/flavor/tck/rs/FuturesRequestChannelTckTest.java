package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesRequester;
import java.util.Iterator;
import java.util.concurrent.Flow;

/**
 * TCK (Flow variant) for the futures flavor's request-channel {@code Flow.Publisher}, its outbound
 * side made with {@link FlowStreams#fromIterator} (messages created only when pulled).
 */
public class FuturesRequestChannelTckTest extends FlowPublisherTck {
  @Override
  public Flow.Publisher<Message> createFlowPublisher(long elements) {
    int total = elements % 2 == 0 ? 1 : 4;
    return leftovers.track(
        new FuturesRequester(peers.client)
            .requestChannel(FlowStreams.fromIterator(outbound(Long.toString(elements), total))));
  }

  private Iterator<Message> outbound(String first, int total) {
    return new Iterator<>() {
      int i;

      @Override
      public boolean hasNext() {
        return i < total;
      }

      @Override
      public Message next() {
        return leftovers.request(i++ == 0 ? first : "extra" + i);
      }
    };
  }

  @Override
  public Flow.Publisher<Message> createFailedFlowPublisher() {
    return leftovers.track(
        new FuturesRequester(peers.closedClient)
            .requestChannel(FlowStreams.fromIterator(outbound("1", 1))));
  }
}
