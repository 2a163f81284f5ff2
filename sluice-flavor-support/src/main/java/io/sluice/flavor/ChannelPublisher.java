package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/**
 * A request-channel. The first downstream {@code request(n)} subscribes to the outbound publisher
 * and asks it for one message; that message travels in REQUEST_CHANNEL with initial N = the
 * downstream demand so far. Further outbound messages are pulled only as the responder grants
 * demand. Demand signalled inside {@code onSubscribe} is acted on once it returns (§1.3).
 */
final class ChannelPublisher extends RequesterPublisher {
  private final Inner inner;

  ChannelPublisher(Requester requester, Object source) {
    this.inner = new Inner(requester, source);
  }

  @Override
  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    if (!inner.subscribed.compareAndSet(false, true)) {
      Downstream.refuse(rs, flow, Downstream.secondSubscriber());
      return;
    }
    if (!inner.requester.isOpen()) {
      inner.done = true;
      Downstream.refuse(rs, flow, RequesterPublisher.notOpen(inner.requester));
      return;
    }
    inner.setSubscriber(rs, flow);
    inner.signalOnSubscribe();
    inner.afterOnSubscribe();
  }

  /** Downstream subscription and stream listener. Pre-start state is guarded by {@code this}. */
  static final class Inner extends Downstream implements StreamListener {
    final AtomicBoolean subscribed = new AtomicBoolean();
    final Requester requester;
    final Object source; // a Reactive Streams Publisher or a Flow.Publisher
    final Outbound outbound = new Outbound(this);

    private long demand; // guarded by this until the handle is published; -1 after a bad request
    private boolean sourceSubscribed; // guarded by this
    private boolean subscribing = true; // guarded by this: until onSubscribe has returned
    volatile boolean canceled;
    volatile boolean done;
    volatile StreamHandle handle;

    Inner(Requester requester, Object source) {
      this.requester = requester;
      this.source = source;
    }

    @SuppressWarnings("unchecked")
    private void subscribeSource() {
      if (source instanceof Publisher) {
        ((Publisher<Message>) source).subscribe(outbound);
      } else {
        ((Flow.Publisher<Message>) source).subscribe(outbound);
      }
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
              demand = addCap(demand, n);
            }
            if (!sourceSubscribed && !subscribing) {
              sourceSubscribed = true;
              subscribeNow = true;
            }
          }
        }
        if (subscribeNow) {
          if (n <= 0) {
            fail(badRequest(n));
            return;
          }
          subscribeSource();
        }
        if (h == null) {
          return;
        }
      }
      h.request(n);
    }

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
        fail(badRequest(d));
        return;
      }
      subscribeSource();
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
        fail(badRequest(n));
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
      if (!done && !canceled) {
        done = true;
        emitError(t);
      }
    }

    @Override
    public void cancel() {
      canceled = true;
      forgetSubscriber();
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      outbound.cancelUpstream();
    }

    // ---- StreamListener (event loop) ----
    @Override
    public void onNext(Message message) {
      if (canceled || done) {
        message.release();
        return;
      }
      emitNext(message);
    }

    @Override
    public void onComplete() {
      if (!done && !canceled) {
        done = true;
        emitComplete();
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

  /** Subscribes to the user's outbound publisher (of either kind) and feeds the stream. */
  static final class Outbound extends Upstream {
    private final Inner inner;
    private boolean firstSeen;

    Outbound(Inner inner) {
      this.inner = inner;
    }

    @Override
    void onUpstream() {
      if (inner.canceled) {
        cancelUpstream();
        return;
      }
      requestUpstream(1); // the first message rides in REQUEST_CHANNEL
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
        inner.onComplete();
        return;
      }
      inner.handle.complete();
    }
  }
}
