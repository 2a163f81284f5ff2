package io.sluice.reactor.tck;

/** TCK blackbox verification of ResponderAdapter's ResponseSubscriber (stream mode: the subscriber on a responder's request-stream and request-channel responses). */
public class ResponseSubscriberBlackboxTckTest extends SubscriberBlackboxTck {
  public ResponseSubscriberBlackboxTckTest() {
    super(SubscriberSupport::responseSubscriber);
  }
}
