package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

/**
 * The shared machinery of a requester-side publisher that is at once the {@link Subscription} its
 * subscriber sees and the {@link StreamListener} the core signals: one object per stream, no
 * operator chain. Signals come from the connection's event loop; {@code request}/{@code cancel} may
 * come from any thread.
 *
 * <p>The stream starts on the first {@code request(n)}. The core's handle is published after the
 * start call returns, possibly after the loop already delivered signals; requests made in that gap
 * are parked in {@link #pending} and handed over by whichever side sees the handle last.
 *
 * <p>Demand signalled from inside the subscriber's {@code onSubscribe} is parked too, and the
 * stream starts only once {@code onSubscribe} has returned: otherwise the loop could deliver the
 * first signal while {@code onSubscribe} still runs on the subscribing thread (§1.3).
 *
 * <p>The subscriber is forgotten once the subscription is canceled (§3.13), so the loop reads
 * {@link #actual} once per signal and drops signals when it is gone.
 */
abstract class StartableStream implements Subscription, StreamListener {
  static final int FRESH = 0;
  static final int SUBSCRIBED = 1;
  static final int STARTED = 2;
  static final int CANCELED = 3;
  static final int DONE = 4;
  /** Inside the subscriber's onSubscribe. */
  static final int SUBSCRIBING = 5;

  volatile int state;
  static final AtomicIntegerFieldUpdater<StartableStream> STATE =
      AtomicIntegerFieldUpdater.newUpdater(StartableStream.class, "state");

  volatile long pending;
  static final AtomicLongFieldUpdater<StartableStream> PENDING =
      AtomicLongFieldUpdater.newUpdater(StartableStream.class, "pending");

  volatile StreamHandle handle;
  CoreSubscriber<? super Message> actual; // null once canceled
  Message request;
  final Requester requester;

  StartableStream(Requester requester, Message request) {
    this.requester = requester;
    this.request = request;
  }

  /**
   * Subscribes {@code actual} if this publisher was never subscribed before. On a connection that
   * is no longer open the subscriber fails at once (§1.4, §1.9), without waiting for demand.
   */
  final void subscribeOnce(CoreSubscriber<? super Message> actual) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBING)) {
      Operators.error(
          actual, new IllegalStateException("a Sluice publisher allows only one subscriber"));
      return;
    }
    if (!requester.isOpen()) {
      state = DONE;
      releaseRequest();
      Operators.error(actual, notOpen(requester));
      return;
    }
    this.actual = actual;
    actual.onSubscribe(this);
    if (STATE.compareAndSet(this, SUBSCRIBING, SUBSCRIBED)) {
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0) {
        request(parked);
      }
    }
  }

  /** The error for a request on a connection that is closed or closing. */
  static Throwable notOpen(Requester requester) {
    return requester.onClose().isDone()
        ? new ConnectionErrorException("connection closed")
        : new ConnectionCloseException("connection is closing; no new requests");
  }

  /** Starts the stream with the first demand; returns the core's handle. */
  abstract StreamHandle start(Message request, long n);

  @Override
  public void request(long n) {
    if (n <= 0) {
      if (STATE.compareAndSet(this, SUBSCRIBED, CANCELED)
          || STATE.compareAndSet(this, SUBSCRIBING, CANCELED)) {
        releaseRequest();
        CoreSubscriber<? super Message> a = actual;
        actual = null;
        a.onError(
            new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n));
      } else {
        StreamHandle h = handle;
        if (h != null) {
          h.request(n); // the core fails the stream with the §3.9 error
        }
      }
      return;
    }
    if (state == SUBSCRIBING) {
      Operators.addCap(PENDING, this, n);
      if (state != SUBSCRIBING) { // onSubscribe returned meanwhile: hand over what is parked
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
      StreamHandle h = start(m, n);
      handle = h;
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0) {
        h.request(parked);
      }
      if (state == CANCELED) {
        h.cancel();
      }
      return;
    }
    StreamHandle h = handle;
    if (h != null) {
      h.request(n);
      return;
    }
    Operators.addCap(PENDING, this, n);
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
      actual = null;
    } else if (s == STARTED) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      actual = null;
      onCanceledByDownstream();
    } else if (s == DONE) {
      state = DONE;
    }
  }

  /** Extra work when the subscriber cancels a started stream. */
  void onCanceledByDownstream() {}

  private void releaseRequest() {
    Message m = request;
    request = null;
    if (m != null) {
      m.release();
    }
  }

  // ---- StreamListener: on the event loop ------------------------------------------------------

  @Override
  public void onNext(Message message) {
    CoreSubscriber<? super Message> a = actual;
    if (a == null || state == CANCELED) {
      message.release();
      return;
    }
    a.onNext(message);
  }

  @Override
  public void onComplete() {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      CoreSubscriber<? super Message> a = actual;
      actual = null;
      a.onComplete();
    }
  }

  @Override
  public void onError(Throwable cause) {
    int s = state;
    if (s != CANCELED && s != DONE && STATE.compareAndSet(this, s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseRequest();
      }
      CoreSubscriber<? super Message> a = actual;
      actual = null;
      a.onError(cause);
    }
  }
}
