package io.sluice.reactor.tck;

import io.sluice.Message;
import java.util.concurrent.ExecutorService;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

/**
 * TCK whitebox verification of the subscriber ResponderAdapter puts on a responder's response
 * publisher (ResponseSubscriber, stream mode: request-stream and request-channel responses),
 * forwarding into a fake core {@link FakeStream}. The probe sees what the subscriber forwards (the
 * fake core reports it); the puppet's demand and cancel come from the peer, through the stream's
 * listener. Elements are pooled messages the fake core releases, so the class is leak-checked in
 * full.
 */
public class ResponseSubscriberWhiteboxTckTest extends SubscriberWhiteboxVerification<Message> {
  static {
    Tck.init();
  }

  private final TestEnvironment env;
  private ExecutorService loop;

  public ResponseSubscriberWhiteboxTckTest() {
    this(Tck.env());
  }

  private ResponseSubscriberWhiteboxTckTest(TestEnvironment env) {
    super(env);
    this.env = env;
  }

  @BeforeClass
  public void startLoop() {
    loop = SubscriberVerifications.newLoop();
  }

  @AfterClass(alwaysRun = true)
  public void stopLoopAndCheckLeaks() throws InterruptedException {
    SubscriberVerifications.shutdown(loop);
    Tck.assertNoLeaks(this);
  }

  @Override
  public Subscriber<Message> createSubscriber(WhiteboxSubscriberProbe<Message> probe) {
    return SubscriberSupport.whitebox(
        SubscriberSupport.responseSubscriber(env, probe, loop), probe);
  }

  @Override
  public Message createElement(int element) {
    return Messages.pooled("e" + element);
  }
}
