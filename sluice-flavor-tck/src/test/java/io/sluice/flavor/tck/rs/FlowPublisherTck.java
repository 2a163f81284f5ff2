package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import java.lang.reflect.Method;
import java.util.concurrent.Flow;
import org.reactivestreams.tck.flow.FlowPublisherVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.BeforeMethod;

/** The TCK's {@link FlowPublisherVerification} for a flavor's {@link Flow.Publisher}s. */
abstract class FlowPublisherTck extends FlowPublisherVerification<Message> {
  static {
    TckPeers.init();
  }

  TckPeers peers;
  final Leftovers<Flow.Publisher<Message>> leftovers = new Leftovers<>();

  FlowPublisherTck() {
    super(TckPeers.env(), TckPeers.PUBLISHER_REFERENCE_GC_TIMEOUT_MILLIS);
  }

  @BeforeClass
  public void startPeers() {
    peers = new TckPeers();
  }

  @AfterClass(alwaysRun = true)
  public void closePeersAndCheckLeaks() {
    if (peers != null) {
      peers.close();
    }
    TckPeers.assertNoLeaks(this);
  }

  @BeforeMethod
  public void noteTest(Method test) {
    leftovers.noteTest(test.getName());
  }

  @AfterMethod(alwaysRun = true)
  public void subscribeAndCancelLeftovers() {
    leftovers.cancelAll(
        p ->
            p.subscribe(
                new Flow.Subscriber<Message>() {
                  @Override
                  public void onSubscribe(Flow.Subscription s) {
                    s.cancel();
                  }

                  @Override
                  public void onNext(Message m) {
                    m.release();
                  }

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onComplete() {}
                }));
  }
}
