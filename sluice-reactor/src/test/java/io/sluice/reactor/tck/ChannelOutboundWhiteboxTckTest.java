package io.sluice.reactor.tck;

/** TCK whitebox verification of the subscriber RequestChannelFlux puts on the user's outbound publisher (first message into requestChannel, the rest into the stream). */
public class ChannelOutboundWhiteboxTckTest extends SubscriberWhiteboxTck {
  public ChannelOutboundWhiteboxTckTest() {
    super(SubscriberSupport::channelOutbound);
  }
}
