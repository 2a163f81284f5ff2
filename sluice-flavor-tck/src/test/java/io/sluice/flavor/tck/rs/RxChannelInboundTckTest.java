package io.sluice.flavor.tck.rs;

import io.reactivex.rxjava3.core.Flowable;
import io.sluice.Message;
import io.sluice.rxjava.RxClient;
import io.sluice.rxjava.RxResponder;
import org.reactivestreams.Publisher;
import org.testng.annotations.BeforeClass;

/**
 * TCK for the {@code Flowable} an {@link RxResponder} receives as a channel's inbound half (the
 * requester's messages after the first). Here the client sends the messages under test, so it is
 * the side allocating untracked frames.
 */
public class RxChannelInboundTckTest extends RsPublisherTck {
  private final InboundChannels<Flowable<Message>> channels = new InboundChannels<>();

  @Override
  @BeforeClass
  public void startPeers() {
    peers =
        new TckPeers(
            RxClient.toResponder(
                new RxResponder() {
                  @Override
                  public Flowable<Message> requestChannel(Message first, Flowable<Message> rest) {
                    channels.offer(first, rest);
                    return Flowable.empty();
                  }
                }),
            false);
  }

  @Override
  public Publisher<Message> createPublisher(long elements) {
    return leftovers.track(channels.open(peers, elements));
  }

  /** The inbound of a channel whose requester's outbound fails after its first message. */
  @Override
  public Publisher<Message> createFailedPublisher() {
    return leftovers.track(channels.openFailed(peers));
  }
}
