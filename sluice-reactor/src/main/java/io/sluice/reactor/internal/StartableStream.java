package io.sluice.reactor.internal;

import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
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
 */
abstract class StartableStream implements Subscription, StreamListener {
  static final int FRESH = 0;
  static final int SUBSCRIBED = 1;
  static final int STARTED = 2;
  static final int CANCELED = 3;
  static final int DONE = 4;

  volatile int state;
  static final AtomicIntegerFieldUpdater<StartableStream> STATE =
      AtomicIntegerFieldUpdater.newUpdater(StartableStream.class, "state");

  volatile long pending;
  static final AtomicLongFieldUpdater<StartableStream> PENDING =
      AtomicLongFieldUpdater.newUpdater(StartableStream.class, "pending");

  volatile StreamHandle handle;
  CoreSubscriber<? super Message> actual;
  Message request;

  StartableStream(Message request) {
    this.request = request;
  }

  /** Subscribes {@code actual} if this publisher was never subscribed before. */
  final void subscribeOnce(CoreSubscriber<? super Message> actual) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBED)) {
      Operators.error(
          actual, new IllegalStateException("a Sluice publisher allows only one subscriber"));
      return;
    }
    this.actual = actual;
    actual.onSubscribe(this);
  }

  /** Starts the stream with the first demand; returns the core's handle. */
  abstract StreamHandle start(Message request, long n);

  @Override
  public void request(long n) {
    if (n <= 0) {
      if (STATE.compareAndSet(this, SUBSCRIBED, CANCELED)) {
        releaseRequest();
        actual.onError(
            new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n));
      } else {
        StreamHandle h = handle;
        if (h != null) {
          h.request(n); // the core fails the stream with the §3.9 error
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
    if (s == SUBSCRIBED) {
      releaseRequest();
    } else if (s == STARTED) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
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
    if (state == CANCELED) {
      message.release();
      return;
    }
    actual.onNext(message);
  }

  @Override
  public void onComplete() {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      actual.onComplete();
    }
  }

  @Override
  public void onError(Throwable cause) {
    int s = state;
    if (s != CANCELED && s != DONE && STATE.compareAndSet(this, s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseRequest();
      }
      actual.onError(cause);
    }
  }
}
