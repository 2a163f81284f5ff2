package io.sluice.flavor.tck.rs;

import io.smallrye.mutiny.Multi;
import io.sluice.Message;
import io.sluice.mutiny.MutinyRequester;
import java.util.concurrent.Flow;

/** TCK (Flow variant) for Mutiny's request-channel {@code Multi}; see RxRequestChannelTckTest. */
public class MutinyRequestChannelTckTest extends FlowPublisherTck {
  @Override
  public Flow.Publisher<Message> createFlowPublisher(long elements) {
    Multi<Message> first =
        Multi.createFrom().item(() -> leftovers.request(Long.toString(elements)));
    Multi<Message> outbound =
        elements % 2 == 0
            ? first
            : Multi.createBy()
                .concatenating()
                .streams(
                    first,
                    Multi.createFrom().range(0, 3).map(i -> leftovers.request("extra" + i)));
    return leftovers.track(new MutinyRequester(peers.client).requestChannel(outbound));
  }

  @Override
  public Flow.Publisher<Message> createFailedFlowPublisher() {
    return leftovers.track(
        new MutinyRequester(peers.closedClient)
            .requestChannel(Multi.createFrom().item(() -> leftovers.request("1"))));
  }
}
