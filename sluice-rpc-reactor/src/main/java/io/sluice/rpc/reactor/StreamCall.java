package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.OnStreamLoop;
import io.sluice.flavor.RequesterPublisher;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.rsocket.ProtoMessages;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A server-streaming call on the fast path of {@link PlainCalls} as one object: the {@link Flux}
 * the caller gets, the {@link Subscription} its subscriber sees and the core's {@link
 * StreamListener} of the request-stream. Each response goes from the event loop through the parser
 * straight to the subscriber.
 *
 * <p>The Flux stays cold and may be subscribed again: the first subscription uses this object,
 * each later one a fresh copy (each subscription is a new call).
 *
 * <p>The first {@code request(n)} sends REQUEST_STREAM with initial N = n (once the subscriber's
 * {@code onSubscribe} has returned: demand signalled inside it is parked until then, §1.3); later
 * ones become REQUEST_N. The core's handle is published after the start call returns, possibly
 * after the loop delivered responses; demand in that gap is parked and handed over by whichever
 * side sees the handle last. A response that cannot be parsed cancels the stream and fails the
 * call with INTERNAL; every failure reaches the subscriber as a {@link
 * io.sluice.rpc.StatusException}, except a {@code request(n <= 0)}'s, an {@link
 * IllegalArgumentException} as Reactive Streams §3.9 requires (which also cancels the stream).
 *
 * <p><b>Threads.</b> {@code subscribe}, {@code request} and {@code cancel} may be called from any
 * thread; the stream's signals arrive on the connection's event loop.
 *
 * <p><b>Buffers.</b> The encoded request is owned from {@code subscribe}: handed to the core at the
 * start, or released here when the call ends first. Each response message is released once parsed,
 * or unread when it arrives after a cancel.
 */
final class StreamCall<Req extends MessageLite, Resp extends MessageLite> extends Flux<Resp>
    implements Subscription, StreamListener {
  private static final int FRESH = 0;
  private static final int SUBSCRIBING = 1; // inside the subscriber's onSubscribe
  private static final int SUBSCRIBED = 2;
  private static final int STARTED = 3;
  private static final int CANCELED = 4;
  private static final int DONE = 5;

  private final Requester requester;
  private final MethodDescriptor<Req, Resp> method;
  private final CallOptions options;
  private final Req request;
  private final Parser<Resp> parser;

  private volatile int state;
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<StreamCall> STATE =
      AtomicIntegerFieldUpdater.newUpdater(StreamCall.class, "state");

  private volatile long pending; // demand not yet handed to the core
  @SuppressWarnings("rawtypes")
  private static final AtomicLongFieldUpdater<StreamCall> PENDING =
      AtomicLongFieldUpdater.newUpdater(StreamCall.class, "pending");

  private volatile CoreSubscriber<? super Resp> actual; // null once the call ended or was canceled
  private volatile StreamHandle handle;
  private Message first; // the encoded request until the start
  /** A request(n <= 0) not yet signalled (§3.9): kept while onSubscribe runs or the start ends. */
  private volatile IllegalArgumentException badDemand;

  StreamCall(Requester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    this.requester = requester;
    this.method = method;
    this.options = options;
    this.request = request;
    this.parser = method.responseParser();
  }

  @Override
  public void subscribe(CoreSubscriber<? super Resp> s) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBING)) {
      new StreamCall<>(requester, method, options, request).subscribe(s);
      return;
    }
    Message m;
    try {
      m = ProtoMessages.first(requester.alloc(), options.metadata(method), request);
    } catch (Throwable e) {
      state = DONE;
      Operators.error(s, ReactorClientCalls.toStatus(e));
      return;
    }
    if (!requester.isOpen()) {
      state = DONE;
      m.release();
      Operators.error(s, ReactorClientCalls.toStatus(RequesterPublisher.notOpen(requester)));
      return;
    }
    first = m;
    actual = s;
    s.onSubscribe(this);
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

  private void addPending(long n) {
    for (; ; ) {
      long p = pending;
      long sum = p + n;
      if (PENDING.compareAndSet(this, p, sum < 0 ? Long.MAX_VALUE : sum)) {
        return;
      }
    }
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      badDemand = new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
      if (state != SUBSCRIBING) { // inside onSubscribe: signalled once it has returned (§1.3)
        failBadDemand();
      }
      return;
    }
    int s = state;
    if (s == SUBSCRIBING) {
      addPending(n);
      if (state != SUBSCRIBING) { // onSubscribe returned meanwhile: hand the demand on
        long parked = PENDING.getAndSet(this, 0);
        if (parked > 0) {
          request(parked);
        }
      }
      return;
    }
    if (s == SUBSCRIBED && STATE.compareAndSet(this, SUBSCRIBED, STARTED)) {
      Message m = first;
      first = null;
      StreamHandle h = requester.requestStream(m, n, this);
      handle = h;
      long parked = PENDING.getAndSet(this, 0);
      if (parked > 0) {
        h.request(parked);
      }
      if (state == CANCELED) {
        h.cancel(); // canceled while starting: cancel() saw no handle yet
      } else if (badDemand != null) {
        failBadDemand(); // request(n <= 0) while starting saw no handle yet
      }
      return;
    }
    StreamHandle h = handle;
    if (h != null) {
      h.request(n);
      return;
    }
    if (state != STARTED) {
      return; // ended: demand means nothing now
    }
    addPending(n);
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
      releaseFirst();
    } else if (s == STARTED) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
    } else if (s == DONE) {
      state = DONE;
      return;
    }
    actual = null;
  }

  /**
   * Ends the call with the §3.9 error of a request(n <= 0), once, as an {@link
   * IllegalArgumentException}: before the start at once (nothing else signals then); once started
   * on the stream's event loop, where every other signal comes from (§1.3), cancelling the stream.
   * A start that has not published its handle yet does this when it has.
   */
  private void failBadDemand() {
    IllegalArgumentException e = badDemand;
    if (e == null) {
      return;
    }
    if (STATE.compareAndSet(this, SUBSCRIBED, DONE)) {
      releaseFirst();
      failWith(e);
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
            failWith(e);
          }
        };
    OnStreamLoop.run(h, end);
  }

  /** Fails the subscriber once with {@code e} as it is. */
  private void failWith(Throwable e) {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a != null) {
      a.onError(e);
    }
  }

  private void releaseFirst() {
    Message m = first;
    first = null;
    if (m != null) {
      m.release();
    }
  }

  /** Fails the subscriber once, with the failure as a StatusException. */
  private void fail(Throwable cause) {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a != null) {
      a.onError(ReactorClientCalls.toStatus(cause));
    }
  }

  // ---- StreamListener: on the event loop ----

  @Override
  public void onNext(Message message) {
    CoreSubscriber<? super Resp> a = actual;
    if (a == null || state != STARTED) {
      message.release();
      return;
    }
    Resp value;
    try {
      value = ProtoMessages.parse(parser, message);
    } catch (RuntimeException e) {
      parseFailed(e);
      return;
    }
    a.onNext(value);
  }

  /** A response that is not a valid message: the stream is cancelled and the call fails. */
  private void parseFailed(RuntimeException e) {
    // CANCELED, not DONE: a starting thread that has not published the handle yet cancels the
    // stream once it has, as for a subscriber's cancel.
    if (STATE.compareAndSet(this, STARTED, CANCELED)) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      fail(e);
    }
  }

  @Override
  public void onComplete() {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      CoreSubscriber<? super Resp> a = actual;
      actual = null;
      if (a != null) {
        a.onComplete();
      }
    }
  }

  @Override
  public void onError(Throwable cause) {
    int s = state;
    if (s != CANCELED && s != DONE && STATE.compareAndSet(this, s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseFirst();
      }
      fail(cause);
    }
  }
}
