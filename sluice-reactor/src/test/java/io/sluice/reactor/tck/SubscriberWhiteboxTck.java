package io.sluice.reactor.tck;

import io.sluice.Message;
import java.util.concurrent.ExecutorService;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

/**
 * TCK whitebox verification of one Sluice subscriber, wired to a fake core {@link FakeStream} by
 * a {@link SubscriberSupport.Wiring}. The probe sees what the subscriber forwards (the fake core
 * reports it); the puppet's demand and cancel come from the peer, through the stream's listener.
 * Elements are pooled messages the fake core releases, so each class is leak-checked in full.
 */
abstract class SubscriberWhiteboxTck extends SubscriberWhiteboxVerification<Message> {
  static {
    Tck.init();
  }

  private final TestEnvironment env;
  private final SubscriberSupport.Wiring wiring;
  private ExecutorService loop;

  SubscriberWhiteboxTck(SubscriberSupport.Wiring wiring) {
    this(Tck.env(), wiring);
  }

  private SubscriberWhiteboxTck(TestEnvironment env, SubscriberSupport.Wiring wiring) {
    super(env);
    this.env = env;
    this.wiring = wiring;
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
    return SubscriberSupport.whitebox(wiring.wire(env, probe, loop), probe);
  }

  @Override
  public Message createElement(int element) {
    return Messages.pooled("e" + element);
  }
}
