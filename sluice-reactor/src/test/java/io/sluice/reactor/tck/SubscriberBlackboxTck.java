package io.sluice.reactor.tck;

import io.sluice.Message;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberBlackboxVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

/**
 * TCK blackbox verification of one Sluice subscriber, wired to a fake core {@link FakeStream} by
 * a {@link SubscriberSupport.Wiring}. The TCK drives the subscriber object itself; {@link
 * #triggerRequest} grants it demand from the peer, through the stream's listener. Elements are
 * pooled messages the fake core releases, so each class is leak-checked in full.
 */
abstract class SubscriberBlackboxTck extends SubscriberBlackboxVerification<Message> {
  static {
    Tck.init();
  }

  private final SubscriberSupport.Wiring wiring;
  private ExecutorService loop;
  private final Map<Subscriber<?>, FakeStream> streams = new ConcurrentHashMap<>();

  SubscriberBlackboxTck(SubscriberSupport.Wiring wiring) {
    super(Tck.env());
    this.wiring = wiring;
  }

  @BeforeClass
  public void startLoop() {
    loop = SubscriberVerifications.newLoop();
  }

  @AfterClass(alwaysRun = true)
  public void stopLoopAndCheckLeaks() throws InterruptedException {
    streams.clear();
    SubscriberVerifications.shutdown(loop);
    Tck.assertNoLeaks(this);
  }

  @Override
  public Subscriber<Message> createSubscriber() {
    SubscriberSupport.Wired w = wiring.wire(env, null, loop);
    streams.put(w.subscriber, w.stream);
    return w.subscriber;
  }

  @Override
  public void triggerRequest(Subscriber<? super Message> subscriber) {
    FakeStream stream = streams.get(subscriber);
    if (stream != null) {
      stream.grant(1);
    }
  }

  @Override
  public Message createElement(int element) {
    return Messages.pooled("e" + element);
  }
}
