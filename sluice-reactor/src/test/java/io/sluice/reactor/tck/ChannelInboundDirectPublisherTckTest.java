package io.sluice.reactor.tck;

/**
 * TCK for a responder's channel inbound {@code Flux} (ChannelInbound), subscribed through {@link
 * DirectPublisher}, seeing Sluice's own Subscription. See {@link ChannelInboundVerification}.
 */
public class ChannelInboundDirectPublisherTckTest extends ChannelInboundVerification {
  public ChannelInboundDirectPublisherTckTest() {
    super(true);
  }
}
