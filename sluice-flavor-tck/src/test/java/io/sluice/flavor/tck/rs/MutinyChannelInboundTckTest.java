package io.sluice.flavor.tck.rs;

import io.smallrye.mutiny.Multi;
import io.sluice.Message;
import io.sluice.mutiny.MutinyClient;
import io.sluice.mutiny.MutinyResponder;
import java.util.concurrent.Flow;
import org.testng.annotations.BeforeClass;

/** TCK (Flow variant) for the {@code Multi} a {@link MutinyResponder} receives as a channel's inbound. */
public class MutinyChannelInboundTckTest extends FlowPublisherTck {
  private final InboundChannels<Multi<Message>> channels = new InboundChannels<>();

  @Override
  @BeforeClass
  public void startPeers() {
    peers =
        new TckPeers(
            MutinyClient.toResponder(
                new MutinyResponder() {
                  @Override
                  public Multi<Message> requestChannel(Message first, Multi<Message> rest) {
                    channels.offer(first, rest);
                    return Multi.createFrom().empty();
                  }
                }),
            false);
  }

  @Override
  public Flow.Publisher<Message> createFlowPublisher(long elements) {
    return leftovers.track(channels.open(peers, elements));
  }

  /** The inbound of a channel whose requester's outbound fails after its first message. */
  @Override
  public Flow.Publisher<Message> createFailedFlowPublisher() {
    return leftovers.track(channels.openFailed(peers));
  }
}
