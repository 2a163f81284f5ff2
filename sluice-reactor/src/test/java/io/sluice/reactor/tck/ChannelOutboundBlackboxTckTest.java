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
 * TCK blackbox verification of the subscriber RequestChannelFlux puts on the user's outbound
 * publisher, forwarding the first message into {@code requestChannel} and the rest into the stream
 * handle of a fake core {@link FakeStream}. The TCK drives the subscriber object itself; {@link
 * #triggerRequest} grants it demand from the peer, through the stream's listener. Elements are
 * pooled messages the fake core releases, so the class is leak-checked in full.
 */
public class ChannelOutboundBlackboxTckTest extends SubscriberBlackboxVerification<Message> {
  static {
    Tck.init();
  }

  private ExecutorService loop;
  private final Map<Subscriber<?>, FakeStream> streams = new ConcurrentHashMap<>();

  public ChannelOutboundBlackboxTckTest() {
    super(Tck.env());
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
    SubscriberSupport.Wired w = SubscriberSupport.channelOutbound(env, null, loop);
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
