package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscriber;

/**
 * Request-response or request-stream: one object that is the subscription its subscriber sees and
 * the core's stream listener, signals going straight from the event loop to the subscriber. {@link
 * RequesterPublisher#requestStream} wraps it as a publisher of either kind; a flavor whose own
 * publisher type is a class (project-reactor's {@code Flux}) holds it and calls {@link
 * #subscribe(Subscriber)}.
 *
 * <p>The stream starts on the first {@code request(n)}. The core's handle is published after the
 * start call returns, possibly after the loop already delivered signals; requests made in that gap
 * are parked in {@code pending} and handed over by whichever side sees the handle last. Demand
 * signalled inside the subscriber's {@code onSubscribe} is parked too, and the stream starts only
 * once {@code onSubscribe} has returned, so no signal reaches the subscriber meanwhile (§1.3). On a
 * connection that is no longer open the subscriber fails at once (§1.4, §1.9).
 *
 * <p><b>Threads.</b> {@code request} and {@code cancel} may be called from any thread. The {@link
 * StreamListener} methods are called by the core on the connection's event loop and signal the
 * subscriber there; a bad {@code request(n)} before the start is signalled on the requesting
 * thread (once {@code onSubscribe} has returned), after it on the event loop, where it also cancels
 * the stream (§3.9: an {@link IllegalArgumentException}).
 *
 * <p><b>Buffers.</b> The request message is owned from construction: handed to the core when the
 * stream starts, or released here if the subscription ends first. Received messages belong to the
 * subscriber, which must release them; those arriving after {@code cancel} are released here.
 */
public final class StreamSubscription extends Downstream implements StreamListener {
  private static final int FRESH = 0;
  private static final int SUBSCRIBED = 1;
  private static final int STARTED = 2;
  private static final int CANCELED = 3;
  private static final int DONE = 4;
  private static final int SUBSCRIBING = 5;

  private volatile int state;
  private static final AtomicIntegerFieldUpdater<StreamSubscription> STATE =
      AtomicIntegerFieldUpdater.newUpdater(StreamSubscription.class, "state");

  private volatile long pending;
  private static final AtomicLongFieldUpdater<StreamSubscription> PENDING =
      AtomicLongFieldUpdater.newUpdater(StreamSubscription.class, "pending");

  private volatile StreamHandle handle;
  /** A request(n <= 0) not yet signalled (§3.9): kept while onSubscribe runs or the start ends. */
  private volatile IllegalArgumentException badDemand;
  private Message request;
  private final Requester requester;
  private final boolean stream;

  /**
   * @param request the request message, owned from now on (released once sent, or when the
   *     subscription ends before sending)
   * @param stream true for request-stream, false for request-response
   */
  public StreamSubscription(Requester requester, Message request, boolean stream) {
    this.requester = requester;
    this.request = request;
    this.stream = stream;
  }

  /** Subscribes {@code s}; a second subscriber is refused (single-use). */
  public void subscribe(Subscriber<? super Message> s) {
    subscribe(s, null);
  }

  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBING)) {
      refuse(rs, flow, secondSubscriber());
      return;
    }
    if (!requester.isOpen()) {
      state = DONE;
      releaseRequest();
      refuse(rs, flow, RequesterPublisher.notOpen(requester));
      return;
    }
    setSubscriber(rs, flow);
    signalOnSubscribe();
    if (STATE.compareAndSet(this, SUBSCRIBING, SUBSCRIBED)) {
      if (badDemand != null) {
        failBadDemand();
        return;
      }
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0) {
        request(parked);
      }
    }
  }

  private static void addPending(StreamSubscription self, long n) {
    for (; ; ) {
      long p = self.pending;
      if (PENDING.compareAndSet(self, p, addCap(p, n))) {
        return;
      }
    }
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      badDemand = badRequest(n);
      if (state != SUBSCRIBING) { // inside onSubscribe: signalled once it has returned (§1.3)
        failBadDemand();
      }
      return;
    }
    if (state == SUBSCRIBING) {
      addPending(this, n);
      if (state != SUBSCRIBING) {
        long parked = PENDING.getAndSet(this, 0);
        if (parked > 0) {
          request(parked);
        }
      }
      return;
    }
    if (state == SUBSCRIBED && STATE.compareAndSet(this, SUBSCRIBED, STARTED)) {
      Message m = request;
      request = null;
      StreamHandle h =
          stream ? requester.requestStream(m, n, this) : requester.requestResponse(m, this);
      handle = h;
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0 && stream) {
        h.request(parked);
      }
      if (state == CANCELED) {
        h.cancel();
      } else if (badDemand != null) {
        failBadDemand(); // request(n <= 0) while starting saw no handle yet
      }
      return;
    }
    if (!stream) {
      return; // request-response: further demand means nothing to the peer
    }
    StreamHandle h = handle;
    if (h != null) {
      h.request(n);
      return;
    }
    addPending(this, n);
    h = handle;
    if (h != null) {
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0) {
        h.request(parked);
      }
    }
  }

  @Override
  public void cancel() {
    int s = STATE.getAndSet(this, CANCELED);
    if (s == SUBSCRIBED || s == SUBSCRIBING) {
      releaseRequest();
      forgetSubscriber();
    } else if (s == STARTED) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      forgetSubscriber();
    } else if (s == DONE) {
      state = DONE;
    }
  }

  /**
   * Ends the subscription with the §3.9 error of a request(n <= 0), once: before the start at once
   * (nothing else signals then); once started on the stream's event loop ({@link OnStreamLoop}), where
   * every other signal comes from (§1.3), cancelling the stream. For a request-response too: the core
   * ignores request(n) once it has started. A start that has not published its handle yet does
   * this when it has.
   */
  private void failBadDemand() {
    IllegalArgumentException e = badDemand;
    if (e == null) {
      return;
    }
    if (STATE.compareAndSet(this, SUBSCRIBED, DONE)) {
      releaseRequest();
      emitError(e);
      return;
    }
    StreamHandle h = handle;
    if (h == null || state != STARTED) {
      return;
    }
    Runnable end =
        () -> {
          if (STATE.compareAndSet(this, STARTED, DONE)) {
            h.cancel();
            emitError(e);
          }
        };
    OnStreamLoop.run(h, end);
  }

  private void releaseRequest() {
    Message m = request;
    request = null;
    if (m != null) {
      m.release();
    }
  }

  // ---- StreamListener: on the event loop ----

  @Override
  public void onNext(Message message) {
    int s = state;
    if (s == CANCELED || s == DONE) { // DONE: ended by a bad request(n) while in flight
      message.release();
      return;
    }
    emitNext(message);
  }

  @Override
  public void onComplete() {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      emitComplete();
    }
  }

  @Override
  public void onError(Throwable cause) {
    int s = state;
    if (s != CANCELED && s != DONE && STATE.compareAndSet(this, s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseRequest();
      }
      emitError(cause);
    }
  }
}
