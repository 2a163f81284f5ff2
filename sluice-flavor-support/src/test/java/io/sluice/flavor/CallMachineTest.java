package io.sluice.flavor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.StreamSubscriptionRulesTest.Handle;
import io.sluice.flavor.StreamSubscriptionRulesTest.Recorder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The transitions of {@link CallMachine}, through {@link StreamSubscription} (the RPC flavors'
 * one-object calls run the same defaults): demand parked inside onSubscribe becomes the initial
 * demand; demand and cancel arriving while the start has not published its handle yet reach the
 * handle once it has; signals after the end change nothing; the request is released exactly once
 * whichever way the call ends before its start.
 */
class CallMachineTest {

  /** A requester that records each start and runs {@link #duringStart} before returning its handle. */
  static final class Starting implements Requester {
    final List<Handle> handles = new CopyOnWriteArrayList<>();
    final List<Long> initialRequests = new CopyOnWriteArrayList<>();
    volatile StreamListener listener;
    volatile Runnable duringStart = () -> {};

    private StreamHandle start(Message request, long n, StreamListener l) {
      request.release();
      listener = l;
      initialRequests.add(n);
      Handle h = new Handle();
      handles.add(h);
      duringStart.run();
      return h;
    }

    @Override
    public void fireAndForget(Message request, StreamListener l) {
      request.release();
    }

    @Override
    public StreamHandle requestResponse(Message request, StreamListener l) {
      return start(request, 1, l);
    }

    @Override
    public StreamHandle requestStream(Message request, long initialRequest, StreamListener l) {
      return start(request, initialRequest, l);
    }

    @Override
    public StreamHandle requestChannel(Message first, boolean complete, long initialRequest, StreamListener l) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void metadataPush(Message metadata, StreamListener l) {
      metadata.release();
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }

    @Override
    public Executor executor() {
      return Runnable::run;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}

    @Override
    public void dispose() {}

    @Override
    public CompletableFuture<Void> onClose() {
      return new CompletableFuture<>();
    }
  }

  @Test
  void demandMadeInsideOnSubscribeIsSummedIntoTheInitialRequest() {
    Starting requester = new Starting();
    Recorder r = new Recorder(2, 3);
    new StreamSubscription(requester, Message.utf8("q"), true).subscribe(r);
    assertThat(requester.initialRequests).containsExactly(5L);
    assertThat(requester.handles.get(0).requests).as("nothing more than the initial demand").isEmpty();
  }

  @Test
  void demandWhileTheStartHasNotPublishedItsHandleReachesTheHandleOnce() {
    Starting requester = new Starting();
    Recorder r = new Recorder();
    StreamSubscription s = new StreamSubscription(requester, Message.utf8("q"), true);
    requester.duringStart =
        () -> {
          s.request(7); // the handle is not published yet: parked
          s.request(Long.MAX_VALUE); // saturates
        };
    s.subscribe(r);
    r.subscription.request(1);
    assertThat(requester.initialRequests).containsExactly(1L);
    assertThat(requester.handles.get(0).requests).containsExactly(Long.MAX_VALUE);
    r.subscription.request(4);
    assertThat(requester.handles.get(0).requests).containsExactly(Long.MAX_VALUE, 4L);
  }

  @Test
  void aRequestResponseSendsNoDemandAfterItsStart() {
    Starting requester = new Starting();
    StreamSubscription s = new StreamSubscription(requester, Message.utf8("q"), false);
    requester.duringStart = () -> s.request(3);
    Recorder r = new Recorder(1);
    s.subscribe(r);
    r.subscription.request(9);
    assertThat(requester.handles).hasSize(1);
    assertThat(requester.handles.get(0).requests).isEmpty();
  }

  @Test
  void cancelWhileStartingCancelsTheStreamOnceItsHandleIsPublished() {
    for (boolean stream : new boolean[] {false, true}) {
      Starting requester = new Starting();
      StreamSubscription s = new StreamSubscription(requester, Message.utf8("q"), stream);
      requester.duringStart = s::cancel;
      Recorder r = new Recorder(1);
      s.subscribe(r);
      assertThat(requester.handles.get(0).canceled.getCount()).as("stream=%s canceled", stream).isZero();
      requester.listener.onNext(Message.utf8("late")); // released, not delivered
      requester.listener.onComplete();
      assertThat(r.signals).containsExactly("onSubscribe returned");
    }
  }

  @Test
  void cancelBeforeTheStartSendsNothingAndReleasesTheRequest() {
    Starting requester = new Starting();
    Message request = Message.utf8("q");
    Recorder r = new Recorder();
    new StreamSubscription(requester, request, true).subscribe(r);
    r.subscription.cancel();
    r.subscription.request(1);
    assertThat(requester.handles).as("nothing sent").isEmpty();
    assertThat(request.refCnt()).as("the request was released").isZero();
    assertThat(r.signals).containsExactly("onSubscribe returned");
  }

  @Test
  void signalsAfterTheEndChangeNothing() {
    Starting requester = new Starting();
    Recorder r = new Recorder(1);
    new StreamSubscription(requester, Message.utf8("q"), true).subscribe(r);
    StreamListener l = requester.listener;
    l.onNext(Message.utf8("a"));
    l.onComplete();
    r.subscription.cancel(); // after the end: no CANCEL
    l.onError(new IllegalStateException("late"));
    l.onComplete();
    r.subscription.request(0); // no §3.9 error after the end either
    assertThat(r.signals).containsExactly("onSubscribe returned", "next", "complete");
    assertThat(requester.handles.get(0).canceled.getCount()).isEqualTo(1);
  }

  @Test
  void aFailureBeforeTheStartReleasesTheRequestAndIsSignalledOnce() {
    Starting requester = new Starting();
    Message request = Message.utf8("q");
    Recorder r = new Recorder();
    StreamSubscription s = new StreamSubscription(requester, request, true);
    s.subscribe(r);
    s.onError(new IllegalStateException("connection lost"));
    s.onError(new IllegalStateException("again"));
    r.subscription.request(1);
    assertThat(request.refCnt()).isZero();
    assertThat(requester.handles).isEmpty();
    assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalStateException");
  }
}
