package io.sluice.flavor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * Reactive Streams rules of {@link StreamSubscription} and {@link ChannelSubscription} over a
 * scripted requester whose streams never answer (review A12): a request(n <= 0) after a
 * request-response started fails the subscriber with an IllegalArgumentException and cancels the
 * stream (§3.9); one made inside onSubscribe is signalled once onSubscribe has returned (§1.3), and
 * nothing is sent; a channel's bad request is signalled whether its outbound publisher has not
 * given a first message yet (or never does) or the first message is being sent.
 */
class StreamSubscriptionRulesTest {
  private static final EventExecutor LOOP = new DefaultEventExecutor();

  @AfterAll
  static void stop() {
    LOOP.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** A stream handle that records the caller's signals; the stream never answers. */
  static final class Handle implements StreamHandle {
    final List<Long> requests = new CopyOnWriteArrayList<>();
    final CountDownLatch canceled = new CountDownLatch(1);

    @Override
    public void request(long n) {
      requests.add(n);
    }

    @Override
    public void cancel() {
      canceled.countDown();
    }

    @Override
    public void next(Message message) {
      message.release();
    }

    @Override
    public void complete() {}

    @Override
    public void error(Throwable cause) {}

    @Override
    public Executor executor() {
      return LOOP;
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }
  }

  /** A requester whose request-responses and streams are taken and never answered. */
  static final class Silent implements Requester {
    final List<Handle> handles = new CopyOnWriteArrayList<>();
    /** Runs inside requestChannel, before its handle is returned (and published). */
    volatile Runnable duringChannelStart = () -> {};

    private StreamHandle take(Message request) {
      request.release();
      Handle h = new Handle();
      handles.add(h);
      return h;
    }

    @Override
    public void fireAndForget(Message request, StreamListener listener) {
      request.release();
    }

    @Override
    public StreamHandle requestResponse(Message request, StreamListener listener) {
      return take(request);
    }

    @Override
    public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
      return take(request);
    }

    @Override
    public StreamHandle requestChannel(
        Message first, boolean complete, long initialRequest, StreamListener listener) {
      StreamHandle h = take(first);
      duringChannelStart.run();
      return h;
    }

    @Override
    public void metadataPush(Message metadata, StreamListener listener) {
      metadata.release();
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }

    @Override
    public Executor executor() {
      return LOOP;
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

  /** Records signals; makes the requests of {@code inOnSubscribe} inside onSubscribe. */
  static final class Recorder implements Subscriber<Message> {
    final List<String> signals = new CopyOnWriteArrayList<>();
    final CompletableFuture<Throwable> error = new CompletableFuture<>();
    volatile Subscription subscription;
    private final long[] inOnSubscribe;

    Recorder(long... inOnSubscribe) {
      this.inOnSubscribe = inOnSubscribe;
    }

    @Override
    public void onSubscribe(Subscription s) {
      subscription = s;
      for (long n : inOnSubscribe) {
        s.request(n);
      }
      signals.add("onSubscribe returned");
    }

    @Override
    public void onNext(Message m) {
      m.release();
      signals.add("next");
    }

    @Override
    public void onError(Throwable t) {
      signals.add("error " + t.getClass().getSimpleName());
      error.complete(t);
    }

    @Override
    public void onComplete() {
      signals.add("complete");
    }
  }

  @Test
  void requestZeroAfterARequestResponseStartedFailsWithIllegalArgumentAndCancels() throws Exception {
    Silent requester = new Silent();
    StreamSubscription s = new StreamSubscription(requester, Message.utf8("q"), false);
    Recorder r = new Recorder(1);
    s.subscribe(r);
    assertThat(requester.handles).as("the request-response started").hasSize(1);
    r.subscription.request(0);
    assertThat(r.error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    assertThat(requester.handles.get(0).canceled.await(30, TimeUnit.SECONDS)).as("the stream was cancelled").isTrue();
    assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
  }

  @Test
  void requestZeroInsideOnSubscribeIsSignalledOnceItReturnedAndNothingIsSent() throws Exception {
    for (boolean stream : new boolean[] {false, true}) {
      Silent requester = new Silent();
      Recorder r = new Recorder(0);
      new StreamSubscription(requester, Message.utf8("q"), stream).subscribe(r);
      assertThat(r.error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
      assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
      assertThat(requester.handles).as("nothing sent").isEmpty();
    }
  }

  /** An outbound publisher the test drives: it records demand and cancel. */
  static final class Source implements org.reactivestreams.Publisher<Message> {
    volatile Subscriber<? super Message> subscriber;
    final List<Long> requests = new CopyOnWriteArrayList<>();
    final CountDownLatch canceled = new CountDownLatch(1);

    @Override
    public void subscribe(Subscriber<? super Message> s) {
      subscriber = s;
      s.onSubscribe(
          new Subscription() {
            @Override
            public void request(long n) {
              requests.add(n);
            }

            @Override
            public void cancel() {
              canceled.countDown();
            }
          });
    }
  }

  /**
   * request(0) after the outbound publisher was subscribed and before its first message: the
   * error now, the outbound publisher cancelled; its completing without a message (an empty
   * outbound) then signals nothing more. It completed the channel instead.
   */
  @Test
  void aChannelAskedForZeroBeforeItsFirstMessageFailsNotCompletes() throws Exception {
    Silent requester = new Silent();
    Source source = new Source();
    Recorder r = new Recorder(1);
    new ChannelSubscription(requester, source).subscribe(r);
    assertThat(source.requests).as("the first message asked for").containsExactly(1L);
    r.subscription.request(0);
    source.subscriber.onComplete(); // an empty outbound
    assertThat(r.error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    assertThat(source.canceled.await(30, TimeUnit.SECONDS)).as("the outbound publisher was cancelled").isTrue();
    assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
    assertThat(requester.handles).as("nothing sent").isEmpty();
  }

  /** request(0) while the first message is being sent (no handle yet): the new stream is cancelled and the error signalled. */
  @Test
  void aChannelAskedForZeroWhileItsFirstMessageIsSentFailsAndCancels() throws Exception {
    Silent requester = new Silent();
    Source source = new Source();
    Recorder r = new Recorder(1);
    requester.duringChannelStart = () -> r.subscription.request(0);
    new ChannelSubscription(requester, source).subscribe(r);
    source.subscriber.onNext(Message.utf8("first"));
    assertThat(requester.handles).as("the channel started").hasSize(1);
    assertThat(r.error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    assertThat(requester.handles.get(0).canceled.await(30, TimeUnit.SECONDS)).as("the stream was cancelled").isTrue();
    assertThat(source.canceled.await(30, TimeUnit.SECONDS)).as("the outbound publisher was cancelled").isTrue();
    assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
  }
}
