package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/**
 * A request-channel: one object that is the subscription its subscriber sees and the core's
 * stream listener, with an {@link Outbound} subscriber on the user's outbound publisher. {@link
 * RequesterPublisher#requestChannel} wraps it as a publisher of either kind; a flavor whose own
 * publisher type is a class (project-reactor's {@code Flux}) holds it and calls {@link
 * #subscribe(Subscriber)}.
 *
 * <p>The first downstream {@code request(n)} subscribes to the outbound publisher and asks it for
 * one message; that message travels in REQUEST_CHANNEL with initial N = the downstream demand so
 * far. Further outbound messages are pulled only as the responder grants demand. Demand signalled
 * inside {@code onSubscribe} is acted on once it returns (§1.3). An empty outbound completes the
 * channel without sending anything. Pre-start state is guarded by {@code this}.
 *
 * <p><b>Threads.</b> {@code request} and {@code cancel} may be called from any thread. The {@link
 * StreamListener} methods are called by the core on the connection's event loop and signal the
 * subscriber there. The outbound publisher may signal {@link Outbound} on any thread, one signal at
 * a time.
 *
 * <p><b>Buffers.</b> Received messages belong to the subscriber, which must release them; those
 * arriving after {@code cancel} are released here. Each outbound message is handed to the core,
 * which owns it from then on; one that arrives after {@code cancel}, or a first one that cannot be
 * sent, is released here.
 */
public final class ChannelSubscription extends Downstream implements StreamListener {
  private boolean subscribed; // guarded by this
  private final Requester requester;
  private final Object source; // a Reactive Streams Publisher or a Flow.Publisher
  private final Outbound outbound;

  private long demand; // guarded by this until the handle is published; -1 after a bad request
  private long badN; // the n of that bad request, guarded by this
  private boolean sourceSubscribed; // guarded by this
  private boolean subscribing = true; // guarded by this: until onSubscribe has returned
  private boolean starting; // guarded by this: the first message is being sent (start)
  private volatile boolean canceled;
  private volatile boolean done;
  private volatile StreamHandle handle;

  /** A channel whose outbound messages come from a Reactive Streams publisher. */
  public ChannelSubscription(Requester requester, Publisher<Message> source) {
    this(requester, (Object) source, Outbound::new);
  }

  /** A channel whose outbound messages come from a {@link Flow.Publisher}. */
  public ChannelSubscription(Requester requester, Flow.Publisher<Message> source) {
    this(requester, (Object) source, Outbound::new);
  }

  /**
   * A channel whose outbound publisher is subscribed by the {@link Outbound} subclass {@code
   * outbound} makes: a flavor whose publishers treat their own subscriber type better (a
   * project-reactor {@code Flux} wraps any other subscriber in a checking one) passes a subclass
   * that also implements that type.
   */
  public ChannelSubscription(
      Requester requester,
      Publisher<Message> source,
      Function<ChannelSubscription, ? extends Outbound> outbound) {
    this(requester, (Object) source, outbound);
  }

  private ChannelSubscription(
      Requester requester, Object source, Function<ChannelSubscription, ? extends Outbound> outbound) {
    this.requester = requester;
    this.source = Objects.requireNonNull(source, "outbound");
    this.outbound = outbound.apply(this);
  }

  /** Subscribes {@code s}; a second subscriber is refused (single-use). */
  public void subscribe(Subscriber<? super Message> s) {
    subscribe(s, null);
  }

  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    synchronized (this) {
      if (subscribed) {
        refuse(rs, flow, secondSubscriber());
        return;
      }
      subscribed = true;
    }
    if (!requester.isOpen()) {
      done = true;
      refuse(rs, flow, RequesterPublisher.notOpen(requester));
      return;
    }
    setSubscriber(rs, flow);
    signalOnSubscribe();
    afterOnSubscribe();
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
      boolean failNow = false;
      synchronized (this) {
        h = handle;
        if (h == null) {
          if (n <= 0) {
            demand = -1;
            badN = n;
            // The outbound publisher was subscribed and its first message is not being sent:
            // fail now (§3.9) rather than when, or if, a first message comes. While it is being
            // sent, the start fails the new stream (on its event loop).
            failNow = sourceSubscribed && !starting;
          } else if (demand >= 0) {
            demand = addCap(demand, n);
          }
          if (!sourceSubscribed && !subscribing) {
            sourceSubscribed = true;
            subscribeNow = true;
          }
        }
      }
      if (failNow) {
        outbound.cancelUpstream();
        fail(badRequest(n));
        return;
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

  /** After the subscriber's onSubscribe returned: act on the demand it signalled in there. */
  private void afterOnSubscribe() {
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
      long bad;
      synchronized (this) {
        bad = badN;
      }
      fail(badRequest(bad));
      return;
    }
    subscribeSource();
  }

  /** On the first outbound message: start the channel. */
  private void start(Message first) {
    long n;
    synchronized (this) {
      n = demand;
      demand = 0;
      starting = n > 0;
    }
    if (n <= 0) {
      long bad;
      synchronized (this) {
        bad = badN;
      }
      first.release();
      outbound.cancelUpstream();
      fail(badRequest(bad));
      return;
    }
    StreamHandle h = requester.requestChannel(first, false, n, this);
    long extra;
    synchronized (this) {
      handle = h;
      extra = demand;
      demand = 0;
    }
    if (extra < 0) { // request(n <= 0) while the first message was being sent
      long bad;
      synchronized (this) {
        bad = badN;
      }
      failStarted(h, badRequest(bad));
      return;
    }
    if (extra > 0) {
      h.request(extra);
    }
    if (canceled) {
      h.cancel();
    }
  }

  /**
   * Cancels the started stream {@code h} and fails the subscriber with {@code e}, as a task of the
   * stream's event loop, where its other signals come from (§1.3).
   */
  private void failStarted(StreamHandle h, Throwable e) {
    Runnable end =
        () -> {
          if (claimDone()) {
            h.cancel();
            outbound.cancelUpstream();
            emitError(e);
          }
        };
    try {
      h.executor().execute(end);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      end.run(); // the loop is gone, and with it every other signal
    }
  }

  /** Marks the channel done, once; false if it already ended or was canceled. */
  private synchronized boolean claimDone() {
    if (done || canceled) {
      return false;
    }
    done = true;
    return true;
  }

  private void fail(Throwable t) {
    if (claimDone()) {
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
    if (claimDone()) {
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

  /**
   * Subscribes to the user's outbound publisher (of either kind) and feeds the channel: the first
   * message starts it, the rest are pulled as the responder grants demand.
   */
  public static class Outbound extends Upstream {
    private final ChannelSubscription channel;
    private boolean firstSeen;

    protected Outbound(ChannelSubscription channel) {
      this.channel = channel;
    }

    @Override
    final void onUpstream() {
      if (channel.canceled) {
        cancelUpstream();
        return;
      }
      requestUpstream(1); // the first message rides in REQUEST_CHANNEL
    }

    @Override
    public final void onNext(Message m) {
      Objects.requireNonNull(m, "onNext(null) (Reactive Streams §2.13)");
      if (channel.canceled) {
        m.release();
        return;
      }
      if (!firstSeen) {
        firstSeen = true;
        channel.start(m);
        return;
      }
      StreamHandle h = channel.handle;
      if (h == null) { // the start failed (a bad request): there is no stream
        m.release();
        return;
      }
      h.next(m);
    }

    @Override
    public final void onError(Throwable t) {
      Objects.requireNonNull(t, "onError(null) (Reactive Streams §2.13)");
      if (!firstSeen) {
        channel.fail(t);
        return;
      }
      StreamHandle h = channel.handle;
      if (h != null) { // null: the start failed, the subscriber already got its error
        h.error(t);
      }
    }

    @Override
    public final void onComplete() {
      if (!firstSeen) {
        channel.onComplete();
        return;
      }
      StreamHandle h = channel.handle;
      if (h != null) { // null: the start failed, the subscriber already got its error
        h.complete();
      }
    }
  }
}
