package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A request-channel as a {@link Flux}. The first downstream {@code request(n)} subscribes to the
 * outbound publisher and asks it for one message; that message travels in REQUEST_CHANNEL with
 * initial N = the downstream demand so far. Further outbound messages are pulled from the
 * publisher only as the responder grants demand. Single-use.
 *
 * <p>Demand signalled inside the subscriber's {@code onSubscribe} is acted on once it returns, so
 * no signal can reach the subscriber while {@code onSubscribe} still runs (§1.3). On a connection
 * that is no longer open the subscriber fails at once (§1.4, §1.9). A canceled subscription
 * forgets its subscriber (§3.13).
 */
public final class RequestChannelFlux extends Flux<Message> {
  private final Inner inner;

  public RequestChannelFlux(Requester requester, Publisher<Message> outbound) {
    this.inner = new Inner(requester, outbound);
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    if (!inner.subscribed.compareAndSet(false, true)) {
      Operators.error(
          actual, new IllegalStateException("a Sluice publisher allows only one subscriber"));
      return;
    }
    if (!inner.requester.isOpen()) {
      inner.done = true;
      Operators.error(actual, StartableStream.notOpen(inner.requester));
      return;
    }
    inner.actual = actual;
    actual.onSubscribe(inner);
    inner.afterOnSubscribe();
  }

  /** Downstream subscription and stream listener. Pre-start state is guarded by {@code this}. */
  private static final class Inner implements Subscription, StreamListener {
    final AtomicBoolean subscribed = new AtomicBoolean();
    final Requester requester;
    final Publisher<Message> source;
    final Outbound outbound = new Outbound(this);
    CoreSubscriber<? super Message> actual; // null once canceled

    private long demand; // guarded by this until the handle is published
    private boolean sourceSubscribed; // guarded by this
    private boolean subscribing = true; // guarded by this: until onSubscribe has returned
    volatile boolean canceled;
    volatile boolean done;
    volatile StreamHandle handle;

    Inner(Requester requester, Publisher<Message> source) {
      this.requester = requester;
      this.source = source;
    }

    @Override
    public void request(long n) {
      StreamHandle h = handle;
      if (h == null) {
        boolean subscribeNow = false;
        synchronized (this) {
          h = handle;
          if (h == null) {
            if (n <= 0) {
              demand = -1;
            } else if (demand >= 0) {
              demand = Operators.addCap(demand, n);
            }
            if (!sourceSubscribed && !subscribing) {
              sourceSubscribed = true;
              subscribeNow = true;
            }
          }
        }
        if (subscribeNow) {
          if (n <= 0) {
            fail(
                new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n));
            return;
          }
          source.subscribe(outbound);
        }
        if (h == null) {
          return;
        }
      }
      h.request(n);
    }

    /** After the subscriber's onSubscribe returned: act on the demand it signalled in there. */
    void afterOnSubscribe() {
      long d;
      synchronized (this) {
        subscribing = false;
        d = demand;
        if (d == 0 || sourceSubscribed || canceled) {
          return;
        }
        sourceSubscribed = true;
      }
      if (d < 0) {
        fail(new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9)"));
        return;
      }
      source.subscribe(outbound);
    }

    /** On the first outbound message: start the channel. */
    void start(Message first) {
      long n;
      synchronized (this) {
        n = demand;
        demand = 0;
      }
      if (n <= 0) {
        first.release();
        outbound.cancelUpstream();
        fail(new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9)"));
        return;
      }
      StreamHandle h = requester.requestChannel(first, false, n, this);
      long extra;
      synchronized (this) {
        handle = h;
        extra = demand;
        demand = 0;
      }
      if (extra > 0) {
        h.request(extra);
      }
      if (canceled) {
        h.cancel();
      }
    }

    void fail(Throwable t) {
      CoreSubscriber<? super Message> a = actual;
      if (a != null && !done && !canceled) {
        done = true;
        actual = null;
        a.onError(t);
      }
    }

    void completeEmpty() {
      onComplete();
    }

    @Override
    public void cancel() {
      canceled = true;
      actual = null;
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      outbound.cancelUpstream();
    }

    // ---- StreamListener (event loop) ----
    @Override
    public void onNext(Message message) {
      CoreSubscriber<? super Message> a = actual;
      if (a == null || canceled || done) {
        message.release();
        return;
      }
      a.onNext(message);
    }

    @Override
    public void onComplete() {
      CoreSubscriber<? super Message> a = actual;
      if (a != null && !done && !canceled) {
        done = true;
        actual = null;
        a.onComplete();
      }
    }

    @Override
    public void onError(Throwable cause) {
      outbound.cancelUpstream();
      fail(cause);
    }

    @Override
    public void onRequest(long n) {
      outbound.requestUpstream(n);
    }

    @Override
    public void onCancel() {
      outbound.cancelUpstream();
    }
  }

  /** Subscribes to the user's outbound publisher and feeds the stream. */
  private static final class Outbound implements CoreSubscriber<Message> {
    private final Inner inner;
    private volatile Subscription upstream;
    private volatile boolean upstreamCanceled;
    private boolean firstSeen;

    Outbound(Inner inner) {
      this.inner = inner;
    }

    @Override
    public void onSubscribe(Subscription s) {
      if (!Operators.validate(upstream, s)) {
        return;
      }
      upstream = s;
      if (upstreamCanceled || inner.canceled) {
        s.cancel();
        return;
      }
      s.request(1); // the first message rides in REQUEST_CHANNEL
    }

    @Override
    public void onNext(Message m) {
      Objects.requireNonNull(m, "onNext(null) (Reactive Streams §2.13)");
      if (inner.canceled) {
        m.release();
        return;
      }
      if (!firstSeen) {
        firstSeen = true;
        inner.start(m);
        return;
      }
      inner.handle.next(m);
    }

    @Override
    public void onError(Throwable t) {
      Objects.requireNonNull(t, "onError(null) (Reactive Streams §2.13)");
      if (!firstSeen) {
        inner.fail(t);
        return;
      }
      inner.handle.error(t);
    }

    @Override
    public void onComplete() {
      if (!firstSeen) {
        inner.completeEmpty();
        return;
      }
      inner.handle.complete();
    }

    void requestUpstream(long n) {
      Subscription s = upstream;
      if (s != null) {
        s.request(n);
      }
    }

    void cancelUpstream() {
      upstreamCanceled = true;
      Subscription s = upstream;
      if (s != null) {
        s.cancel();
      }
    }
  }
}
