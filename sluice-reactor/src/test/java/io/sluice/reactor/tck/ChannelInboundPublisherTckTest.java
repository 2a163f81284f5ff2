package io.sluice.reactor.tck;

/**
 * TCK for a responder's channel inbound {@code Flux} (ChannelInbound), subscribed as a plain
 * Subscriber (through reactor's StrictSubscriber). See {@link ChannelInboundVerification}.
 */
public class ChannelInboundPublisherTckTest extends ChannelInboundVerification {
  public ChannelInboundPublisherTckTest() {
    super(false);
  }
}
