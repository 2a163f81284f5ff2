package io.sluice.reactor.tck;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.test.UntrackedHeapAllocator;
import java.lang.reflect.Method;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.reactivestreams.tck.PublisherVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.BeforeMethod;
import reactor.core.CorePublisher;

/**
 * Runs the TCK's {@link PublisherVerification} against a publisher returned by {@link
 * ReactorRequester}, each backed by a real Sluice connection over the local transport.
 *
 * <p><b>Buffers.</b> The TCK's subscribers keep and never release the messages they receive. The
 * publisher under test is exactly the object {@link ReactorRequester} returns (no operator in
 * between), so instead of releasing on the way the server end of the connection allocates its
 * outbound frames from {@link UntrackedHeapAllocator}: a received message is a retained slice of
 * such a frame, and an unreleased one is plain garbage. The client end (request frames, REQUEST_N,
 * CANCEL) and the request messages the tests create stay on the pooled, leak-tracked allocator,
 * so the publishers' handling of their request message (released when sent, or when canceled or
 * failed before sending) is still leak-checked after the class, by {@link Tck#assertNoLeaks}. What
 * this cannot see is a received message the publisher itself forgets to release (one arriving
 * after cancel): that is left to the JUnit tests, which use tracked buffers throughout.
 *
 * <p><b>Two ways to subscribe.</b> With {@code direct == false} the TCK subscribes as any plain
 * {@code Subscriber} does and reactor wraps it in its {@code StrictSubscriber}; with {@code direct
 * == true} it goes through {@link DirectPublisher}, as reactor's operators do, and sees Sluice's
 * own {@code Subscription}.
 */
abstract class RequesterPublisherVerification<T> extends PublisherVerification<T> {
  static {
    Tck.init();
  }

  private final boolean direct;
  private final Queue<CorePublisher<T>> created = new ConcurrentLinkedQueue<>();
  Peers peers;

  RequesterPublisherVerification(boolean direct) {
    super(Tck.env(), Tck.PUBLISHER_REFERENCE_GC_TIMEOUT_MILLIS);
    this.direct = direct;
  }

  @BeforeClass
  public void startPeers() {
    peers =
        new Peers(
            new TckResponder(), UntrackedHeapAllocator.INSTANCE, PooledByteBufAllocator.DEFAULT);
  }

  @AfterClass(alwaysRun = true)
  public void closePeersAndCheckLeaks() {
    if (peers != null) {
      peers.close();
    }
    Tck.assertNoLeaks(this);
  }

  /**
   * The optional §1.11 (multi-subscribe) tests subscribe twice and, when the second subscriber is
   * refused (Sluice publishers are single-use), abandon the first without canceling it: that
   * subscription holds its request message for good. Only in those tests the request message is
   * an untracked heap buffer; everywhere else it is pooled and leak-checked.
   */
  private volatile boolean abandonsSubscriptions;

  @BeforeMethod
  public void noteTest(Method test) {
    abandonsSubscriptions = test.getName().startsWith("optional_spec111_");
  }

  /** A request message carrying {@code data}. */
  Message request(String data) {
    return abandonsSubscriptions
        ? Message.utf8(UntrackedHeapAllocator.INSTANCE, data)
        : Messages.pooled(data);
  }

  /** The publisher as the TCK should see it: as is, or through {@link DirectPublisher}. */
  Publisher<T> expose(CorePublisher<T> publisher) {
    created.add(publisher);
    return direct ? new DirectPublisher<>(publisher) : publisher;
  }

  /**
   * A Sluice publisher owns its request message until it is subscribed, and some TCK tests create
   * a publisher they never subscribe (e.g. §1.9's {@code subscribe(null)}). After each test, every
   * publisher it created is subscribed once more and canceled at once: one never subscribed
   * releases its message (cancel before request), the others refuse the second subscriber.
   */
  @AfterMethod(alwaysRun = true)
  public void subscribeAndCancelLeftovers() {
    for (CorePublisher<T> p; (p = created.poll()) != null; ) {
      p.subscribe(CancelAtOnce.INSTANCE);
    }
  }

  private static final class CancelAtOnce implements Subscriber<Object> {
    static final CancelAtOnce INSTANCE = new CancelAtOnce();

    @Override
    public void onSubscribe(Subscription s) {
      s.cancel();
    }

    @Override
    public void onNext(Object o) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onComplete() {}
  }
}
