package io.sluice.flavor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A channel whose start failed (the subscriber's request(0) came before the first outbound
 * message) has no stream: a terminal signal its outbound publisher still sends, which a publisher
 * may do after a cancel, must not reach a stream that does not exist (Reactive Streams §2.13: no
 * exception thrown back at the publisher).
 */
class ChannelAfterFailedStartTest {

  /** An open requester that must not be asked for a stream: the channel never starts. */
  private static final Requester UNUSED =
      (Requester)
          Proxy.newProxyInstance(
              Requester.class.getClassLoader(),
              new Class<?>[] {Requester.class},
              (proxy, method, args) -> {
                if (method.getName().equals("isOpen")) {
                  return true;
                }
                throw new AssertionError("the requester was used: " + method.getName());
              });

  /** An outbound publisher the test drives by hand; it keeps signalling after a cancel. */
  static final class Outbound implements Publisher<Message> {
    Subscriber<? super Message> subscriber;
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void subscribe(Subscriber<? super Message> s) {
      subscriber = s;
      s.onSubscribe(
          new Subscription() {
            @Override
            public void request(long n) {
              events.add("request " + n);
            }

            @Override
            public void cancel() {
              events.add("cancel");
            }
          });
    }
  }

  @Test
  void signalsAfterAFailedStartAreIgnored() {
    Outbound outbound = new Outbound();
    List<String> seen = new CopyOnWriteArrayList<>();
    Subscription[] sub = new Subscription[1];
    RequesterPublisher.requestChannel(UNUSED, outbound)
        .subscribe(
            new Subscriber<Message>() {
              @Override
              public void onSubscribe(Subscription s) {
                sub[0] = s;
                s.request(1);
              }

              @Override
              public void onNext(Message m) {
                m.release();
                seen.add("next");
              }

              @Override
              public void onError(Throwable t) {
                seen.add("error " + t.getClass().getSimpleName());
              }

              @Override
              public void onComplete() {
                seen.add("complete");
              }
            });
    sub[0].request(0); // §3.9: the channel fails when it would start
    Message first = Message.of(PooledByteBufAllocator.DEFAULT.buffer(8).writeZero(8));
    outbound.subscriber.onNext(first);
    assertThat(first.refCnt()).isZero();
    assertThat(outbound.events).contains("cancel");
    // A publisher may still signal after a cancel: ignored, nothing thrown back at it.
    outbound.subscriber.onComplete();
    outbound.subscriber.onError(new IllegalStateException("late"));
    Message late = Message.of(PooledByteBufAllocator.DEFAULT.buffer(8).writeZero(8));
    outbound.subscriber.onNext(late);
    assertThat(late.refCnt()).isZero();
    assertThat(seen).containsExactly("error IllegalArgumentException");
  }
}
