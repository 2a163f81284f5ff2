package io.sluice.reactor.tck;

/** TCK whitebox verification of ResponderAdapter's ResponseSubscriber (stream mode: the subscriber on a responder's request-stream and request-channel responses). */
public class ResponseSubscriberWhiteboxTckTest extends SubscriberWhiteboxTck {
  public ResponseSubscriberWhiteboxTckTest() {
    super(SubscriberSupport::responseSubscriber);
  }
}
