package io.sluice.reactor.tck;

/** TCK blackbox verification of the subscriber RequestChannelFlux puts on the user's outbound publisher (first message into requestChannel, the rest into the stream). */
public class ChannelOutboundBlackboxTckTest extends SubscriberBlackboxTck {
  public ChannelOutboundBlackboxTckTest() {
    super(SubscriberSupport::channelOutbound);
  }
}
